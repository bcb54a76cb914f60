import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.stop();
});

/** The ```sh blocks of a Markdown file, in order. */
function shellBlocks(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/** The README's "Using it locally" steps, without `npm start` (the test platform is already running). */
function readmeSteps(): string {
  const [steps] = shellBlocks('README.md').filter((block) => block.includes('/api/cloud/organizations/'));
  if (!steps) throw new Error('README.md has no "Using it locally" block');
  return steps
    .split('\n')
    .filter((line) => !/^npm start\b/.test(line.trim()))
    .join('\n')
    .replaceAll('<password>', adminPassword);
}

/**
 * Runs a script with bash, with the documented localhost:3000 pointed at the test platform. Asynchronously: the
 * platform answers from this very process.
 */
function runScript(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const address = platform.baseUrl.replace(/^http:\/\//, '');
  const child = spawn('bash', ['-c', `set -euo pipefail\n${script.replaceAll('localhost:3000', address)}`], {
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((done) => child.once('close', (status) => done({ status, stdout, stderr })));
}

/** The JSON answers curl printed one after the other (without newlines between them). */
function jsonAnswers(output: string): any[] {
  const answers: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < output.length; i++) {
    const char = output[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      if (depth++ === 0) start = i;
    } else if ((char === '}' || char === ']') && --depth === 0)
      answers.push(JSON.parse(output.slice(start, i + 1)));
  }
  return answers;
}

describe('the worked example of docs/data-tables.md', () => {
  it('runs verbatim after the README steps, every request accepted', async () => {
    const blocks = shellBlocks('docs/data-tables.md');
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const result = await runScript([readmeSteps(), ...blocks].join('\n'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    // What the page says the requests show: the two tables, the book read back, the filtered list, SET NULL.
    const answers = jsonAnswers(result.stdout);
    const tables = answers.filter((answer) => answer.data?.schema).map((answer) => answer.data);
    expect(tables.map((table) => table.name)).toEqual(['authors', 'books']);
    expect(tables[1].schema.primaryKey).toEqual(['id']);
    expect(tables[1].schema.fields[0]).toEqual({ name: 'id', type: 'string', format: 'uuid' });
    // The DELETE answers 204, without a body.
    const [book, list, afterDelete] = answers.slice(-3).map((answer) => answer.data);
    expect(book).toMatchObject({ title: 'Dune', isbn: '9780441013593', status: 'draft', pages: 412 });
    expect(book.author_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(list).toEqual([book]);
    expect(afterDelete).toEqual({ ...book, author_id: null, updated_at: afterDelete.updated_at });
  });
});
