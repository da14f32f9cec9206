// GENERATED from the server's OpenAPI schema by frontend/scripts/gen-api.mjs: do not edit.
// Regenerate with `npm run gen:api` (in frontend/); `npm run check:api` fails when this file is stale.

export const schemaDefaults = {
  "ExplainIn": {
    "chunk_size": 256
  },
  "PushIn": {
    "private": true
  },
  "RetrainIn": {
    "attribution_weight": 5,
    "batch_size": 16,
    "epochs": 2,
    "lam": 1,
    "loss": "mse",
    "lr": 0.00003,
    "max_length": 128,
    "objective": "both",
    "seed": 0
  },
  "TaskIn": {
    "scope": "all"
  }
}
