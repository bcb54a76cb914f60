import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { DeletionHandOff } from '../../lifecycle/hand-off';
import type { Logger } from '../../log';

/** What the deletion sweeper is invoked with: a marker only; it reads the pending deletions from the table. */
export const sweepRequest = { sweep: 'deletions' } as const;

/**
 * The cloud's hand-off (docs/lifecycle.md, "Finished in the background"): an asynchronous invocation
 * (`InvocationType: Event`) of the deletion sweeper function (functions/deletions/handler.ts, infra/deletions.ts),
 * which returns as soon as Lambda has queued it. A failed invocation is logged and does not fail the deletion,
 * which is made already: the sweeper's schedule finishes it.
 */
export class LambdaDeletionHandOff implements DeletionHandOff {
  constructor(
    private readonly lambda: () => Promise<LambdaClient>,
    private readonly functionName: string,
    private readonly log: Logger,
  ) {}

  async handOff(): Promise<void> {
    try {
      const { InvokeCommand } = await import('@aws-sdk/client-lambda');
      const answer = await (await this.lambda()).send(
        new InvokeCommand({
          FunctionName: this.functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(sweepRequest)),
        }),
      );
      if (answer.StatusCode !== 202)
        this.log.warn('deletion sweeper not queued; its schedule will finish the deletion', {
          status: answer.StatusCode,
        });
    } catch (error) {
      this.log.warn('deletion sweeper not invoked; its schedule will finish the deletion', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async stop(): Promise<void> {}
}
