// The fake model's answers (bench/fake-model.ts), which the report's ideals are made of.
export const ANSWER_TOKENS = 200;
export const SLOW_TOKEN_MS = 20;
/** A paced answer's ideal length: the model sends its end ANSWER_TOKENS × SLOW_TOKEN_MS after the request. */
export const PACED_IDEAL_MS = ANSWER_TOKENS * SLOW_TOKEN_MS;
