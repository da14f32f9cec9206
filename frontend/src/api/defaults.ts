// GENERATED from the server's OpenAPI schema by frontend/scripts/gen-api.mjs: do not edit.
// Regenerate with `npm run gen:api` (in frontend/); `npm run check:api` fails when this file is stale.

export const schemaDefaults = {
  "ExplainIn": {
    "chunk_size": 256
  },
  "FeedbackPushIn": {
    "private": true
  },
  "ForecastIn": {
    "max_examples": 2000
  },
  "ImportIn": {
    "preview": false
  },
  "PushIn": {
    "private": true
  },
  "QueueIn": {
    "order": "random",
    "overlap": 1,
    "seed": 0
  },
  "RationalesIn": {
    "format": "auto",
    "min_agreement": 0.5,
    "only": "all",
    "remove_others": false,
    "seed": 0
  },
  "RetrainIn": {
    "attribution_every": 1,
    "attribution_rows": 0,
    "attribution_weight": 5,
    "batch_size": 32,
    "controls": [],
    "cuda_graphs": false,
    "epochs": 2,
    "eval_max_examples": 2000,
    "grad_accum": 1,
    "lam": 1,
    "length_bucketing": true,
    "lr": 0.00003,
    "max_grad_norm": 1,
    "max_length": 128,
    "objective": "both",
    "quality": false,
    "rationale_column": "",
    "seed": 0,
    "seeds": 1,
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

/** What a form needs to show and check one field of a request body (from the server's schema). */
export interface FieldMeta {
  title: string
  help?: string
  type: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  maxLength?: number
  choices?: readonly (string | number)[]
  /** null is a value of its own: the server decides (a boolean shows auto / on / off) */
  nullable?: boolean
}

export const schemaFields = {
  "BaseModelIn": {
    "hub_id": {
      "title": "Hub Id",
      "help": "a Hugging Face Hub model id",
      "type": "string",
      "nullable": true,
      "maxLength": 200
    },
    "model_path": {
      "title": "Model Path",
      "help": "a save_pretrained directory",
      "type": "string",
      "nullable": true,
      "maxLength": 1000
    },
    "recipe": {
      "title": "recipe",
      "help": "the fine-tune settings (default: see BaseRecipe)",
      "type": "object",
      "nullable": true
    }
  },
  "BaseRecipe": {
    "batch_size": {
      "title": "Batch Size",
      "help": "examples per optimiser step (before accumulation)",
      "type": "integer",
      "minimum": 1,
      "maximum": 512
    },
    "cuda_graphs": {
      "title": "Cuda Graphs",
      "help": "on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… tokens. Not with gradient accumulation; the run records whether it was used",
      "type": "boolean"
    },
    "epochs": {
      "title": "Epochs",
      "help": "passes over the training data",
      "type": "integer",
      "minimum": 1,
      "maximum": 50
    },
    "eval_max_examples": {
      "title": "Eval Max Examples",
      "help": "measure each eval set on at most this many examples (a sample fixed by the seed; Results shows it)",
      "type": "integer",
      "minimum": 10,
      "maximum": 10000000
    },
    "grad_accum": {
      "title": "Grad Accum",
      "help": "gradient accumulation steps",
      "type": "integer",
      "minimum": 1,
      "maximum": 1024
    },
    "length_bucketing": {
      "title": "Length Bucketing",
      "help": "batch texts of similar token length together (seeded pools of 50 batches sorted by length, batches shuffled), so a batch is padded only to its own longest text; every example still appears once per epoch",
      "type": "boolean"
    },
    "lr": {
      "title": "Lr",
      "help": "peak learning rate (linear warm-up, then decay)",
      "type": "number",
      "maximum": 1,
      "exclusiveMinimum": 0
    },
    "max_grad_norm": {
      "title": "Max Grad Norm",
      "help": "gradient clipping norm",
      "type": "number",
      "maximum": 1000,
      "exclusiveMinimum": 0
    },
    "max_length": {
      "title": "Max Length",
      "help": "truncate inputs to this many tokens",
      "type": "integer",
      "minimum": 8,
      "maximum": 4096
    },
    "mixed_precision": {
      "title": "Mixed Precision",
      "help": "bf16 autocast of the training steps. Unset (auto): on a CPU that computes bf16 natively (AVX512-BF16 or AMX), where retraining ran 1.2-2.3x faster with the same effect; float32 on a GPU, where small steps ran slower in bf16. true: wherever the device computes bf16 natively; false: float32. bf16 is never emulated; the run records whether it was used",
      "type": "boolean",
      "nullable": true
    },
    "seed": {
      "title": "Seed",
      "help": "seed for shuffling and initialisation",
      "type": "integer",
      "minimum": 0,
      "maximum": 2147483647
    },
    "warmup_ratio": {
      "title": "Warmup Ratio",
      "help": "share of the steps spent warming up",
      "type": "number",
      "minimum": 0,
      "maximum": 1
    },
    "weight_decay": {
      "title": "Weight Decay",
      "help": "AdamW weight decay",
      "type": "number",
      "minimum": 0,
      "maximum": 1
    }
  },
  "DecideIn": {
    "action": {
      "title": "Action",
      "help": "edit: the action to keep; accept: which to keep on a tie",
      "type": "string",
      "nullable": true,
      "choices": [
        "add",
        "remove"
      ]
    },
    "decision": {
      "title": "Decision",
      "type": "string",
      "choices": [
        "accept",
        "reject",
        "edit"
      ]
    },
    "key": {
      "title": "Key",
      "type": "string",
      "minLength": 1,
      "maxLength": 300
    }
  },
  "EvaluateIn": {
    "dataset_ids": {
      "title": "Dataset Ids",
      "help": "default: every eval dataset",
      "type": "array",
      "nullable": true
    },
    "version_id": {
      "title": "Version Id",
      "type": "integer",
      "minimum": 1,
      "maximum": 2147483647
    }
  },
  "ExplainIn": {
    "chunk_size": {
      "title": "Chunk Size",
      "type": "integer",
      "minimum": 8,
      "maximum": 10000
    },
    "dataset_id": {
      "title": "Dataset Id",
      "help": "default: every training dataset",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 2147483647
    },
    "method": {
      "title": "Method",
      "type": "string",
      "nullable": true
    },
    "version_id": {
      "title": "Version Id",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 2147483647
    }
  },
  "FeedbackPushIn": {
    "k": {
      "title": "K",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 100
    },
    "policy": {
      "title": "Policy",
      "help": "the consensus policy (default: the project's)",
      "type": "string",
      "nullable": true,
      "maxLength": 20
    },
    "private": {
      "title": "Private",
      "type": "boolean"
    },
    "repo_id": {
      "title": "Repo Id",
      "help": "the model's repository; the feedback goes to the dataset repository <repo_id>-feedback",
      "type": "string",
      "minLength": 1,
      "maxLength": 87
    },
    "token": {
      "title": "Token",
      "help": "a Hugging Face write token; never stored",
      "type": "string",
      "nullable": true
    }
  },
  "ForecastIn": {
    "eval_dataset_ids": {
      "title": "Eval Dataset Ids",
      "help": "default: every eval dataset",
      "type": "array",
      "nullable": true
    },
    "max_examples": {
      "title": "Max Examples",
      "help": "examples per eval set",
      "type": "integer",
      "minimum": 1,
      "maximum": 20000
    },
    "train_dataset_ids": {
      "title": "Train Dataset Ids",
      "help": "where instance marks and the flagged class are read (default: every training set)",
      "type": "array",
      "nullable": true
    },
    "version_id": {
      "title": "Version Id",
      "help": "the version to forecast (default: latest ready)",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 2147483647
    }
  },
  "ImportIn": {
    "dataset_id": {
      "title": "Dataset Id",
      "help": "instance entries name examples of this dataset by their file id",
      "type": "integer",
      "minimum": 1,
      "maximum": 2147483647
    },
    "feedback": {
      "title": "Feedback",
      "help": "the export format: {instance: [...], task: [...]}",
      "type": "object",
      "nullable": true
    },
    "preview": {
      "title": "Preview",
      "help": "only say what the import would touch; write nothing",
      "type": "boolean"
    },
    "rationales": {
      "title": "rationales",
      "type": "object",
      "nullable": true
    },
    "words": {
      "title": "words",
      "type": "object",
      "nullable": true
    }
  },
  "InstanceIn": {
    "action": {
      "title": "action",
      "type": "object"
    },
    "word_index": {
      "title": "Word Index",
      "help": "position of the word in the example (as in the explanation)",
      "type": "integer",
      "minimum": 0,
      "maximum": 2147483647
    }
  },
  "PushIn": {
    "private": {
      "title": "Private",
      "type": "boolean"
    },
    "repo_id": {
      "title": "Repo Id",
      "type": "string",
      "minLength": 1,
      "maxLength": 96
    },
    "token": {
      "title": "Token",
      "help": "a Hugging Face write token; used for this push only, never stored",
      "type": "string",
      "nullable": true
    },
    "version_id": {
      "title": "Version Id",
      "type": "integer",
      "minimum": 1,
      "maximum": 2147483647
    }
  },
  "QueueIn": {
    "annotators": {
      "title": "Annotators",
      "help": "user ids, in assignment order",
      "type": "array"
    },
    "dataset_id": {
      "title": "Dataset Id",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 2147483647
    },
    "name": {
      "title": "Name",
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "order": {
      "title": "order",
      "type": "object"
    },
    "overlap": {
      "title": "Overlap",
      "help": "how many people see each example",
      "type": "integer",
      "minimum": 1,
      "maximum": 100
    },
    "seed": {
      "title": "Seed",
      "type": "integer",
      "minimum": 0,
      "maximum": 2147483647
    },
    "slice": {
      "title": "Slice",
      "type": "string",
      "nullable": true,
      "minLength": 1,
      "maxLength": 100
    },
    "words": {
      "title": "Words",
      "help": "the examples containing any of these words",
      "type": "array",
      "nullable": true
    }
  },
  "QueueStatusIn": {
    "status": {
      "title": "status",
      "type": "object"
    }
  },
  "RationalesIn": {
    "budget": {
      "title": "Budget",
      "help": "keep this many examples, drawn with the seed",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 2147483647
    },
    "column": {
      "title": "Column",
      "help": "the column with human rationales",
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "format": {
      "title": "Format",
      "help": "auto, binary, positions, words, spans",
      "type": "string"
    },
    "min_agreement": {
      "title": "Min Agreement",
      "help": "annotators needed: a count (2), or a fraction of a row's annotators (0.5)",
      "type": "integer"
    },
    "only": {
      "title": "only",
      "help": "examples the current version predicts correctly / incorrectly, or all",
      "type": "object"
    },
    "remove_others": {
      "title": "Remove Others",
      "help": "also *remove* on every other word of those examples",
      "type": "boolean"
    },
    "seed": {
      "title": "Seed",
      "type": "integer",
      "minimum": 0,
      "maximum": 2147483647
    },
    "tokens_column": {
      "title": "Tokens Column",
      "help": "a token list the flags/positions refer to (e.g. post_tokens)",
      "type": "string",
      "nullable": true,
      "maxLength": 200
    }
  },
  "RetrainIn": {
    "attribution_every": {
      "title": "Attribution Every",
      "help": "the attribution term (second derivative) on every k-th batch only, weighted by k so its mean strength stays; the other batches take the erasure term alone (objective 'both') or no ER term (objective 'attribution'); 1 = every batch",
      "type": "integer",
      "minimum": 1,
      "maximum": 64
    },
    "attribution_rows": {
      "title": "Attribution Rows",
      "help": "at most this many feedback rows per batch take the attribution term (its second derivative is the dearest part of a step): those that took it the fewest times so far in the run, ties drawn with a seeded generator; 0 = every feedback row; the erasure term still sees every feedback row",
      "type": "integer",
      "minimum": 0,
      "maximum": 4096
    },
    "attribution_weight": {
      "title": "Attribution Weight",
      "help": "weight μ of the attribution term with objective 'both'",
      "type": "number",
      "minimum": 0,
      "maximum": 1000
    },
    "batch_size": {
      "title": "Batch Size",
      "help": "examples per optimiser step (before accumulation)",
      "type": "integer",
      "minimum": 1,
      "maximum": 512
    },
    "controls": {
      "title": "Controls",
      "help": "control arms trained beside the debug run (none: no comparison)",
      "type": "array",
      "choices": [
        "lambda0",
        "deletion",
        "deletion_base",
        "strip"
      ]
    },
    "cuda_graphs": {
      "title": "Cuda Graphs",
      "help": "on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… tokens. Not with gradient accumulation; the run records whether it was used",
      "type": "boolean"
    },
    "epochs": {
      "title": "Epochs",
      "help": "passes over the training data",
      "type": "integer",
      "minimum": 1,
      "maximum": 50
    },
    "eval_dataset_ids": {
      "title": "Eval Dataset Ids",
      "help": "default: every eval dataset",
      "type": "array",
      "nullable": true
    },
    "eval_max_examples": {
      "title": "Eval Max Examples",
      "help": "measure each eval set on at most this many examples (a sample fixed by the seed; Results shows it)",
      "type": "integer",
      "minimum": 10,
      "maximum": 10000000
    },
    "grad_accum": {
      "title": "Grad Accum",
      "help": "gradient accumulation steps",
      "type": "integer",
      "minimum": 1,
      "maximum": 1024
    },
    "lam": {
      "title": "Lam",
      "help": "λ, the weight of the ER term",
      "type": "number",
      "minimum": 0,
      "maximum": 1000
    },
    "length_bucketing": {
      "title": "Length Bucketing",
      "help": "batch texts of similar token length together (seeded pools of 50 batches sorted by length, batches shuffled), so a batch is padded only to its own longest text; every example still appears once per epoch",
      "type": "boolean"
    },
    "lr": {
      "title": "Lr",
      "help": "peak learning rate (linear warm-up, then decay)",
      "type": "number",
      "maximum": 1,
      "exclusiveMinimum": 0
    },
    "max_grad_norm": {
      "title": "Max Grad Norm",
      "help": "gradient clipping norm",
      "type": "number",
      "maximum": 1000,
      "exclusiveMinimum": 0
    },
    "max_length": {
      "title": "Max Length",
      "help": "truncate inputs to this many tokens",
      "type": "integer",
      "minimum": 8,
      "maximum": 4096
    },
    "mixed_precision": {
      "title": "Mixed Precision",
      "help": "bf16 autocast of the training steps. Unset (auto): on a CPU that computes bf16 natively (AVX512-BF16 or AMX), where retraining ran 1.2-2.3x faster with the same effect; float32 on a GPU, where small steps ran slower in bf16. true: wherever the device computes bf16 natively; false: float32. bf16 is never emulated; the run records whether it was used",
      "type": "boolean",
      "nullable": true
    },
    "objective": {
      "title": "Objective",
      "help": "erasure consistency, the paper's attribution matching, or both (measured best)",
      "type": "string",
      "choices": [
        "erasure",
        "attribution",
        "both"
      ]
    },
    "quality": {
      "title": "Quality",
      "help": "with controls: faithfulness (AOPC) of every arm before/after",
      "type": "boolean"
    },
    "rationale_column": {
      "title": "Rationale Column",
      "help": "with controls: eval-set column of human rationales for plausibility (AUPRC, token-F1)",
      "type": "string"
    },
    "seed": {
      "title": "Seed",
      "help": "seed for shuffling and initialisation",
      "type": "integer",
      "minimum": 0,
      "maximum": 2147483647
    },
    "seeds": {
      "title": "Seeds",
      "help": "with controls: every arm runs this many seeds (3 is advised)",
      "type": "integer",
      "minimum": 1,
      "maximum": 10
    },
    "train_dataset_ids": {
      "title": "Train Dataset Ids",
      "help": "default: every training dataset",
      "type": "array",
      "nullable": true
    },
    "version_id": {
      "title": "Version Id",
      "help": "the version to start from (default: latest ready)",
      "type": "integer",
      "nullable": true,
      "minimum": 1,
      "maximum": 2147483647
    },
    "warmup_ratio": {
      "title": "Warmup Ratio",
      "help": "share of the steps spent warming up",
      "type": "number",
      "minimum": 0,
      "maximum": 1
    },
    "weight_decay": {
      "title": "Weight Decay",
      "help": "AdamW weight decay",
      "type": "number",
      "minimum": 0,
      "maximum": 1
    }
  },
  "TaskIn": {
    "action": {
      "title": "action",
      "type": "object"
    },
    "label": {
      "title": "Label",
      "help": "only examples of this gold label (default: all)",
      "type": "integer",
      "nullable": true,
      "minimum": 0,
      "maximum": 2147483647
    },
    "scope": {
      "title": "scope",
      "help": "all, or only correctly / incorrectly predicted examples",
      "type": "object"
    },
    "word": {
      "title": "Word",
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    }
  },
  "WordsIn": {
    "action": {
      "title": "Action",
      "type": "string",
      "choices": [
        "add",
        "remove"
      ]
    },
    "label": {
      "title": "Label",
      "help": "only examples of this gold label",
      "type": "integer",
      "nullable": true,
      "minimum": 0,
      "maximum": 2147483647
    },
    "name": {
      "title": "Name",
      "help": "its file name (the source tag)",
      "type": "string",
      "minLength": 1,
      "maxLength": 200
    },
    "scope": {
      "title": "scope",
      "type": "object"
    },
    "text": {
      "title": "Text",
      "help": "the word list file's content",
      "type": "string",
      "minLength": 1,
      "maxLength": 1000000
    }
  }
} satisfies Record<string, Record<string, FieldMeta>>
