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
    "attribution_gate": false,
    "attribution_gate_every": 4,
    "attribution_gate_patience": 8,
    "attribution_gate_tol": 0.05,
    "attribution_rows": 0,
    "attribution_weight": 5,
    "batch_size": 32,
    "controls": [],
    "counterfactual_weight": 0,
    "cuda_graphs": false,
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
    "joint_forward": "auto",
    "lam": 1,
    "length_bucketing": true,
    "loss": "mse",
    "lr": 0.00003,
    "max_grad_norm": 1,
    "max_length": 128,
    "method": "grad_x_input",
    "objective": "both",
    "quality": false,
    "rationale_column": "",
    "second_order": "exact",
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
      "help": "on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… tokens. Not with gradient accumulation, the attribution gate or second_order='difference'; the run records whether it was used",
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
    "add_margin": {
      "title": "Add Margin",
      "help": "nats that hiding an 'add' word must cost",
      "type": "number",
      "minimum": 0,
      "maximum": 100
    },
    "add_target": {
      "title": "Add Target",
      "help": "attribution target of an 'add' word: 'signed' = its share toward the gold label must reach 1 (a word that pushes against the gold label is penalised); 'magnitude' = its absolute share, whatever its sign (the old behaviour, kept for comparisons)",
      "type": "string",
      "choices": [
        "signed",
        "magnitude"
      ]
    },
    "attribution_every": {
      "title": "Attribution Every",
      "help": "the attribution term (second derivative) on every k-th batch only, weighted by k so its mean strength stays; the other batches take the erasure term alone (objective 'both') or no ER term (objective 'attribution'); 1 = every batch",
      "type": "integer",
      "minimum": 1,
      "maximum": 64
    },
    "attribution_gate": {
      "title": "Attribution Gate",
      "help": "thin out the attribution term once it has converged: after attribution_gate_patience batches with the term in which the running attribution error (the feedback words' mean distance from their target share, read off those batches) did not fall attribution_gate_tol below its best, the term runs on every attribution_gate_every-th batch only, and on every batch again if the running error climbs past 1.5x its best: the second derivative is paid while it still moves the shares",
      "type": "boolean"
    },
    "attribution_gate_every": {
      "title": "Attribution Gate Every",
      "help": "... and then the attribution term on every k-th batch",
      "type": "integer",
      "minimum": 1,
      "maximum": 64
    },
    "attribution_gate_patience": {
      "title": "Attribution Gate Patience",
      "help": "... batches with the term without progress before it thins out ...",
      "type": "integer",
      "minimum": 1,
      "maximum": 1000
    },
    "attribution_gate_tol": {
      "title": "Attribution Gate Tol",
      "help": "... progress: the running error this fraction below its best ...",
      "type": "number",
      "minimum": 0,
      "maximum": 1
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
        "deletion_base"
      ]
    },
    "counterfactual_weight": {
      "title": "Counterfactual Weight",
      "help": "off at 0 (the default; a dev candidate): the ER term gains this weight times the task loss of each example with 'remove' words on its counterfactual, the same text with those words hidden from attention, so the text with and without the words must both get the gold label",
      "type": "number",
      "minimum": 0,
      "maximum": 1000
    },
    "cuda_graphs": {
      "title": "Cuda Graphs",
      "help": "on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… tokens. Not with gradient accumulation, the attribution gate or second_order='difference'; the run records whether it was used",
      "type": "boolean"
    },
    "early_stop": {
      "title": "Early Stop",
      "help": "stop before the last epoch once the ER term and the removed words' share have converged on held-out feedback rows (rule: xmd.core.training.early_stop_converged)",
      "type": "boolean"
    },
    "early_stop_checks": {
      "title": "Early Stop Checks",
      "help": "how many times over the planned steps the held-out rows are measured",
      "type": "integer",
      "minimum": 1,
      "maximum": 1000
    },
    "early_stop_er_tol": {
      "title": "Early Stop Er Tol",
      "help": "... and the ER term by at most this fraction of its value (plus 0.002) ...",
      "type": "number",
      "minimum": 0,
      "maximum": 10
    },
    "early_stop_min_progress": {
      "title": "Early Stop Min Progress",
      "help": "... and at least this fraction of the planned steps has run",
      "type": "number",
      "minimum": 0,
      "maximum": 1
    },
    "early_stop_patience": {
      "title": "Early Stop Patience",
      "help": "... between each of this many consecutive checks ...",
      "type": "integer",
      "minimum": 1,
      "maximum": 100
    },
    "early_stop_rows": {
      "title": "Early Stop Rows",
      "help": "feedback rows held out of training to watch for convergence (at most a fifth)",
      "type": "integer",
      "minimum": 2,
      "maximum": 4096
    },
    "early_stop_share_tol": {
      "title": "Early Stop Share Tol",
      "help": "converged when the removed words' share moved by at most this much (absolute) ...",
      "type": "number",
      "minimum": 0,
      "maximum": 1
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
    "joint_forward": {
      "title": "Joint Forward",
      "help": "one forward pass over the batch and its erased copies instead of one per part: fewer kernel launches, which a GPU step waits on, but every row then enters the backward pass, which costs more on a CPU (bench/er_overhead.py); auto = on a GPU only; same loss either way",
      "type": "string",
      "choices": [
        "auto",
        "on",
        "off"
      ]
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
    "loss": {
      "title": "Loss",
      "help": "loss of the attribution term",
      "type": "string",
      "choices": [
        "mse",
        "mae",
        "huber"
      ]
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
    "method": {
      "title": "Method",
      "help": "attribution in the loss",
      "type": "string",
      "choices": [
        "grad_x_input",
        "saliency"
      ]
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
    "second_order": {
      "title": "Second Order",
      "help": "how the attribution term's gradient (a second derivative) is taken: 'exact' differentiates the in-graph grad x input (a double backward pass); 'difference' takes it as a finite difference of two first-order passes, the second with the embeddings moved a little along the direction the term wants, with the same dropout (grad_x_input only; saliency stays exact)",
      "type": "string",
      "choices": [
        "exact",
        "difference"
      ]
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
    "task_scope": {
      "title": "Task Scope",
      "help": "which examples task-level feedback regularises, by the parent's predictions before training: all (the default), those it predicts correctly (the XMD paper's choice) or incorrectly; a task feedback with its own scope keeps it; instance feedback is not affected",
      "type": "string",
      "choices": [
        "all",
        "correct",
        "incorrect"
      ]
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
