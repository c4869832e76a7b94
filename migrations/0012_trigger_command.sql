-- What a run executes belongs to its trigger (editable only by those who may
-- edit triggers), never to the run's input, which any operator chooses.
-- Until now the pipeline-worker agent ran `input.command`; each existing
-- trigger keeps doing what it did: its default input's command becomes its
-- command (an argv array as the shell line that runs the same argv, each
-- word single-quoted). The input itself is left as it was: it is data now.

ALTER TABLE triggers ADD COLUMN command text;

UPDATE triggers SET command = input->>'command'
WHERE jsonb_typeof(input->'command') = 'string' AND input->>'command' <> '';

-- CASE: SQL does not promise to test the type before the array functions run.
UPDATE triggers SET command = (
  SELECT string_agg('''' || replace(word, '''', '''\''''') || '''', ' ' ORDER BY n)
  FROM jsonb_array_elements_text(input->'command') WITH ORDINALITY AS w(word, n)
)
WHERE CASE WHEN jsonb_typeof(input->'command') = 'array'
  THEN jsonb_array_length(input->'command') > 0 AND NOT EXISTS (
    SELECT 1 FROM jsonb_array_elements(input->'command') AS e(v) WHERE jsonb_typeof(e.v) <> 'string')
  ELSE false END;
