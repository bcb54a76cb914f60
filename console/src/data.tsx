/**
 * The data screens (docs/console.md), in console/src/data/: the tables of an app (`tables.tsx`), a table's
 * records (`records.tsx`, `filters.tsx`, `record-form.tsx`), aggregation (`aggregate.tsx`), import
 * (`import.tsx`), schema changes (`schema.tsx`) and a record with its relationships (`record.tsx`); without React,
 * so unit tests read them: the model (`types.ts`), filter conditions (`conditions.ts`) and import files (`csv.ts`).
 */
export { SelectField, TextField } from './data/fields';
export { highlighted } from './data/records';
export { DataScreen } from './data/screen';
