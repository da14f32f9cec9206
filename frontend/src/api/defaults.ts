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
    "add_margin": 0.5,
    "attribution_weight": 5,
    "batch_size": 16,
    "epochs": 2,
    "grad_accum": 1,
    "lam": 1,
    "loss": "mse",
    "lr": 0.00003,
    "max_grad_norm": 1,
    "max_length": 128,
    "method": "grad_x_input",
    "mixed_precision": false,
    "objective": "both",
    "seed": 0,
    "warmup_ratio": 0.06,
    "weight_decay": 0.01
  },
  "TaskIn": {
    "scope": "all"
  }
}
