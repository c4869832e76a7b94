-- A trigger may declare the shape of its runs' input as a JSON Schema
-- (draft 2020-12): every run request is checked against it before anything
-- is stored. NULL: any JSON input.

ALTER TABLE triggers ADD COLUMN input_schema jsonb;
