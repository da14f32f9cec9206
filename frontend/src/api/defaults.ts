// GENERATED from the server's OpenAPI schema by frontend/scripts/gen-api.mjs: do not edit.
// Regenerate with `npm run gen:api` (in frontend/); `npm run check:api` fails when this file is stale.

export const schemaDefaults = {
  "ExplainIn": {
    "chunk_size": 256
  },
  "ImportIn": {
    "preview": false
  },
  "PushIn": {
    "private": true
  },
  "RationalesIn": {
    "format": "auto",
    "min_agreement": 0.5,
    "only": "all",
    "remove_others": false,
    "seed": 0
  },
  "RetrainIn": {
    "add_margin": 0.5,
    "add_target": "signed",
    "attribution_every": 1,
    "attribution_rows": 0,
    "attribution_weight": 5,
    "batch_size": 32,
    "controls": [],
    "counterfactual_weight": 0,
    "early_stop": false,
    "early_stop_checks": 20,
    "early_stop_er_tol": 0.2,
    "early_stop_min_progress": 0.3,
    "early_stop_patience": 2,
    "early_stop_rows": 32,
    "early_stop_share_tol": 0.02,
    "epochs": 2,
    "eval_max_examples": 2000,
    "grad_accum": 1,
    "lam": 1,
    "length_bucketing": true,
    "loss": "mse",
    "lr": 0.00003,
    "max_grad_norm": 1,
    "max_length": 128,
    "method": "grad_x_input",
    "mixed_precision": false,
    "objective": "both",
    "quality": false,
    "rationale_column": "",
    "seed": 0,
    "seeds": 1,
    "task_scope": "all",
    "warmup_ratio": 0.06,
    "weight_decay": 0.01
  },
  "TaskIn": {
    "scope": "all"
  },
  "WordsIn": {
    "action": "remove",
    "name": "list",
    "scope": "all"
  }
}
