/**
 * The data screens (docs/console.md), in console/src/data/: the tables of an app (`tables.tsx`), a table's
 * records (`records.tsx`, `filters.tsx`, `record-form.tsx`), aggregation (`aggregate.tsx`), import
 * (`import.tsx`), schema changes (`schema.tsx`) and a record with its relationships (`record.tsx`).
 */
export { SelectField, TextField } from './data/fields';
export { highlighted } from './data/records';
export { DataScreen } from './data/screen';
