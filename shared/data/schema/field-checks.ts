import { typeRule } from '../common/field-types';
import { type FieldDef, type FieldType, fieldTypes, stringFormats, systemFields } from '../common/model';
import { nameProblem } from './names';
import { patternProblem } from './patterns';
import type { Problems } from './problems';
import { checkValue } from './validator';

const knownTypes: readonly string[] = fieldTypes.filter((type) => type !== 'tsvector');

/** One field on its own: name, type, format, constraints, default and x-search. */
export function checkField(field: FieldDef, path: string, key: boolean, problems: Problems): void {
  const nameIssue = nameProblem(field.name, 'field');
  if (nameIssue) problems.add(`${path}.name`, nameIssue);
  if (!(fieldTypes as readonly string[]).includes(field.type)) {
    problems.add(
      `${path}.type`,
      `Unknown type "${field.type}" for field "${field.name}". Use one of: ${knownTypes.join(', ')}.`,
    );
    return;
  }
  checkFormat(field, path, problems);
  checkConstraints(field, path, problems);
  checkDefault(field, path, key, problems);
  if (field['x-search'] !== undefined && field.type !== 'tsvector')
    problems.add(
      `${path}.x-search`,
      `Only the ${systemFields.searchVector} field (type tsvector) takes x-search.`,
    );
}

/** Strings take one of the known formats; other types only `default`. */
function checkFormat(field: FieldDef, path: string, problems: Problems): void {
  if (field.format === undefined) return;
  const allowed: readonly string[] = field.type === 'string' ? stringFormats : ['default'];
  if (!allowed.includes(field.format))
    problems.add(
      `${path}.format`,
      field.type === 'string'
        ? `Unknown format "${field.format}" for field "${field.name}". Use one of: ${stringFormats.join(', ')}.`
        : `Field "${field.name}" of type ${field.type} takes no format.`,
    );
}

/** Each constraint applies to the field's type, bounds are in order, a pattern compiles, enum values fit. */
function checkConstraints(field: FieldDef, path: string, problems: Problems): void {
  const { name } = field;
  const rule = typeRule(field.type);
  const c = field.constraints ?? {};
  for (const constraint of Object.keys(c)) {
    if (constraint === 'required') continue;
    const applies =
      rule.constraints.includes(constraint) &&
      !(field.format === 'uuid' && ['minLength', 'maxLength', 'pattern'].includes(constraint));
    if (!applies)
      problems.add(
        `${path}.constraints.${constraint}`,
        `The constraint ${constraint} does not apply to field "${name}" of type ${field.type}.`,
      );
  }
  if (c.minLength !== undefined && c.maxLength !== undefined && c.minLength > c.maxLength)
    problems.add(`${path}.constraints`, `Field "${name}": minLength is greater than maxLength.`);
  if (c.minimum !== undefined && c.maximum !== undefined && c.minimum > c.maximum)
    problems.add(`${path}.constraints`, `Field "${name}": minimum is greater than maximum.`);
  const patternIssue = c.pattern === undefined ? undefined : patternProblem(name, c.pattern);
  if (patternIssue) problems.add(`${path}.constraints.pattern`, patternIssue);
  if (c.enum !== undefined && rule.constraints.includes('enum')) {
    const wrong = c.enum.filter((value) => checkValue({ ...field, constraints: {} }, true, value).length > 0);
    if (wrong.length > 0)
      problems.add(
        `${path}.constraints.enum`,
        `Field "${name}": the enum values ${wrong.map((value) => JSON.stringify(value)).join(', ')} are not of type ${field.type}.`,
      );
  }
}

/** A default meets the field's own checks; the primary key takes none. */
function checkDefault(field: FieldDef, path: string, key: boolean, problems: Problems): void {
  if (field.default === undefined) return;
  if (key) problems.add(`${path}.default`, `Field "${field.name}" is the primary key: it takes no default.`);
  else if (field.type !== 'tsvector') {
    const messages = checkValue(field, false, field.default);
    if (messages.length > 0)
      problems.add(
        `${path}.default`,
        `Field "${field.name}": the default is not valid. ${messages.join(' ')}`,
      );
  }
}

/** A field named like a platform field has that field’s type, and only such a field is a tsvector. */
export function checkSystemField(field: FieldDef, path: string, problems: Problems): void {
  const managed = (type: FieldType, what: string) => {
    if (field.type !== type)
      problems.add(`${path}.type`, `Field "${field.name}" ${what}: it must be of type ${type}.`);
    if (field.constraints !== undefined || field.default !== undefined)
      problems.add(`${path}`, `Field "${field.name}" ${what}: it takes no constraints and no default.`);
  };
  switch (field.name) {
    case systemFields.createdAt:
      managed('datetime', 'is set by the platform when a record is created');
      return;
    case systemFields.updatedAt:
      managed('datetime', 'is set by the platform whenever a record changes');
      return;
    case systemFields.isDeleted:
      managed('boolean', 'marks soft-deleted records');
      return;
    case systemFields.searchVector:
      if (field.type !== 'tsvector')
        problems.add(
          `${path}.type`,
          `Field "${field.name}" is the full-text index: it must be of type tsvector.`,
        );
      return;
    default:
      if (field.type === 'tsvector')
        problems.add(
          `${path}.type`,
          `Only the field named ${systemFields.searchVector} may be of type tsvector (field "${field.name}").`,
        );
  }
}

/** Field definitions in a stable shape: constraints only when some are set. */
export function normalizeField(raw: FieldDef): FieldDef {
  const field: FieldDef = { name: raw.name, type: raw.type };
  if (raw.format !== undefined && raw.format !== 'default') field.format = raw.format;
  if (raw.title !== undefined) field.title = raw.title;
  if (raw.description !== undefined) field.description = raw.description;
  if (raw.example !== undefined) field.example = raw.example;
  if (raw.constraints && Object.keys(raw.constraints).length > 0) field.constraints = { ...raw.constraints };
  if (raw.default !== undefined) field.default = raw.default;
  if (raw.sensitive === true) field.sensitive = true;
  if (raw['x-search'])
    field['x-search'] = {
      fields: [...raw['x-search'].fields],
      language: raw['x-search'].language ?? 'english',
    };
  return field;
}
