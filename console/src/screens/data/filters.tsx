import { useId, useState } from 'react';
import type { Operator } from '../../../../client/src/index';
import { SelectField, TextField } from '../../kit/fields';
import { displayValue, type FieldDef, jsonTypes } from '../../queries/table-types';
import {
  type Condition,
  conditionName,
  conditionValue,
  operatorLabels,
  operatorsFor,
  toFilter,
} from './conditions';

export { type Condition, toFilter } from './conditions';

/**
 * The grid's filters: a field (and, on a JSON field, an optional path inside it), one of the API's operators for
 * what it applies to (the operator table of the query language, shared/data/query/operators.ts), and a value.
 */

export function FilterChips({
  conditions,
  onRemove,
}: {
  conditions: Condition[];
  onRemove: (index: number) => void;
}) {
  if (conditions.length === 0) return null;
  return (
    <ul className="chips" aria-label="Active filters">
      {conditions.map((condition, index) => {
        const label = operatorLabels[condition.operator] ?? condition.operator;
        const empties = condition.operator === 'null' || condition.operator === 'nnull';
        return (
          <li key={`${conditionName(condition)}-${condition.operator}-${index}`}>
            {conditionName(condition)} {label} {empties ? '' : displayValue(condition.value)}
            <button
              type="button"
              aria-label={`Remove filter ${conditionName(condition)} ${label}`}
              onClick={() => onRemove(index)}
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}

export function FilterBuilder({
  fields,
  onAdd,
}: {
  fields: FieldDef[];
  onAdd: (condition: Condition) => void;
}) {
  const id = useId();
  const filterable = fields.filter((field) => field.type !== 'tsvector');
  const [fieldName, setFieldName] = useState(filterable[0]?.name ?? '');
  const [pathText, setPathText] = useState('');
  const [operator, setOperator] = useState<string>('eq');
  const [value, setValue] = useState('');
  const [errors, setErrors] = useState<{ path?: string; value?: string }>({});
  const field = filterable.find((candidate) => candidate.name === fieldName);
  const isJson = jsonTypes.has(field?.type ?? '');
  const path = isJson
    ? pathText
        .split('.')
        .map((key) => key.trim())
        .filter(Boolean)
    : [];
  const operators = operatorsFor(field?.type ?? 'string', path.length > 0);
  const usedOperator = (
    operators.includes(operator as Operator) ? operator : (operators[0] ?? 'eq')
  ) as Operator;
  const needsValue = usedOperator !== 'null' && usedOperator !== 'nnull';
  return (
    <form
      className="filters"
      aria-label="Add a filter"
      id={id}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (!field) return;
        const typed = field.type === 'boolean' ? value || 'true' : value;
        const parsed = conditionValue(field.type, path.length > 0, usedOperator, typed);
        if (parsed.error) return setErrors({ value: parsed.error });
        const condition = { field: field.name, path, operator: usedOperator, value: parsed.value };
        try {
          // The client checks names and operands (no `__` in a key, no comma inside a list value).
          toFilter([condition]);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return setErrors(
            /holds "__"|needs at least one key/.test(message) ? { path: message } : { value: message },
          );
        }
        setErrors({});
        onAdd(condition);
        setValue('');
      }}
    >
      <SelectField
        label="Filter field"
        value={fieldName}
        options={filterable.map((candidate) => [candidate.name, candidate.name])}
        onChange={(name) => {
          setFieldName(name);
          setPathText('');
          setErrors({});
        }}
      />
      {isJson && (
        <TextField
          label="JSON path (optional)"
          hint="Keys inside the field, separated by dots: awards.hugo"
          value={pathText}
          onChange={setPathText}
          error={errors.path}
        />
      )}
      <SelectField
        label="Operator"
        value={usedOperator}
        options={operators.map((name) => [name, operatorLabels[name] ?? name])}
        onChange={setOperator}
      />
      {needsValue &&
        (field?.type === 'boolean' ? (
          <SelectField
            label="Value"
            value={value || 'true'}
            options={[
              ['true', 'true'],
              ['false', 'false'],
            ]}
            onChange={setValue}
          />
        ) : (
          <TextField label="Value" value={value} onChange={setValue} error={errors.value} />
        ))}
      <button type="submit">Add filter</button>
    </form>
  );
}
