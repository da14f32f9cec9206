// GENERATED from the server's OpenAPI schema by frontend/scripts/gen-api.mjs: do not edit.
// Regenerate with `npm run gen:api` (in frontend/); `npm run check:api` fails when this file is stale.

export interface paths {
    "/api/datasets/{dataset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete Dataset
         * @description Delete a dataset, its examples, their explanations (out of the rankings) and their feedback.
         */
        delete: operations["delete_dataset_api_datasets__dataset_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/datasets/{dataset_id}/examples": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Examples
         * @description A page of examples in file order, filtered; ``correctness`` uses the stored predictions of the
         *     version (default: the latest ready one) — examples not explained yet match neither correct nor incorrect.
         */
        get: operations["list_examples_api_datasets__dataset_id__examples_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/examples/{example_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Example
         * @description One example with its stored prediction under a version (default: the latest ready one).
         */
        get: operations["get_example_api_examples__example_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/examples/{example_id}/explanation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Explanation
         * @description Word attributions of one example under a model version (default: latest ready) and method;
         *     computed on first request and cached (the task ranking is updated in the same transaction).
         */
        get: operations["get_explanation_api_examples__example_id__explanation_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/examples/{example_id}/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Instance Feedback
         * @description Add / remove / reset one word of one example; committed before the response.
         */
        put: operations["set_instance_feedback_api_examples__example_id__feedback_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health
         * @description Liveness: answers without authentication.
         */
        get: operations["health_api_health_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Job
         * @description Status, progress (0–100, step, epoch), timings, worker, error and result of a job.
         */
        get: operations["get_job_api_jobs__job_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel Job
         * @description Stop a job: a queued one at once, a running one at its next step (409 if it already ended).
         */
        post: operations["cancel_job_api_jobs__job_id__cancel_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Job Events
         * @description Server-sent events: ``job`` on every status/progress change, ``metric`` per new loss point, then
         *     ``end``. Browsers' EventSource cannot set headers, so ``?token=`` is accepted here too.
         */
        get: operations["job_events_api_jobs__job_id__events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{job_id}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Metrics
         * @description Loss-curve points (task loss, ER loss) in order; ``after`` = the last id seen, for increments
         *     (``total`` counts the points after it).
         */
        get: operations["get_metrics_api_jobs__job_id__metrics_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Me
         * @description Who the token belongs to, and their role.
         */
        get: operations["me_api_me_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Projects
         * @description All projects, newest first.
         */
        get: operations["list_projects_api_projects_get"];
        put?: never;
        /**
         * Create Project
         * @description Create a project from a model directory on the server or a Hub id; the model is loaded to check
         *     it (422 with the reason when it does not load or its classes do not match ``labels``).
         */
        post: operations["create_project_api_projects_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Project
         * @description One project with its counts and its base and latest model versions.
         */
        get: operations["get_project_api_projects__project_id__get"];
        put?: never;
        post?: never;
        /**
         * Delete Project
         * @description Delete a project, everything it owns in the database, and its model versions on disk.
         */
        delete: operations["delete_project_api_projects__project_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/compare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compare
         * @description Metrics per eval set of two versions side by side (with deltas), the corrected words' share
         *     before/after, and, for ``example_id``, the example's explanation under both versions.
         */
        get: operations["compare_api_projects__project_id__compare_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/datasets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Datasets
         * @description The project's datasets with their label counts, in creation order.
         */
        get: operations["list_datasets_api_projects__project_id__datasets_get"];
        put?: never;
        /**
         * Upload Dataset
         * @description Upload a labelled dataset (train: explained and retrained on; eval: measured before/after).
         *     Labels may be class names or indices; every problem in the file is reported at once (422).
         */
        post: operations["upload_dataset_api_projects__project_id__datasets_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/datasets/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Preview Dataset
         * @description Columns and first rows of a file, so the text and label columns can be chosen before uploading.
         */
        post: operations["preview_dataset_api_projects__project_id__datasets_preview_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Feedback
         * @description Current feedback, in the order it was given, with who gave it and when.
         */
        get: operations["list_feedback_api_projects__project_id__feedback_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/feedback/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Events
         * @description Every click, resets included: the audit trail (and what undo steps back through). Oldest
         *     first with ``after_id`` paging, or ``order=desc`` with ``before_id`` for the latest clicks.
         */
        get: operations["list_events_api_projects__project_id__feedback_events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/feedback/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export Feedback
         * @description The current feedback as the core's JSON (instance entries by example file id, with their words).
         */
        get: operations["export_feedback_api_projects__project_id__feedback_export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/feedback/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import Feedback
         * @description Record an exported feedback file as new events, all or nothing (422 naming the first problem).
         */
        post: operations["import_feedback_api_projects__project_id__feedback_import_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Jobs
         * @description The project's jobs, newest first.
         */
        get: operations["list_jobs_api_projects__project_id__jobs_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/jobs/evaluate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start Evaluate
         * @description Measure a version on eval sets (default: all of them); results land in the version's metrics.
         */
        post: operations["start_evaluate_api_projects__project_id__jobs_evaluate_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/jobs/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start Explain
         * @description Explain every example of a training dataset (default: the first) with a version and method.
         */
        post: operations["start_explain_api_projects__project_id__jobs_explain_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/jobs/push": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start Push
         * @description Push a version to the Hugging Face Hub; the token travels in the job message only, never the DB.
         */
        post: operations["start_push_api_projects__project_id__jobs_push_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/jobs/retrain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start Retrain
         * @description Retrain a version with the project's feedback (L = L_task + λ·L_ER) into a new version.
         */
        post: operations["start_retrain_api_projects__project_id__jobs_retrain_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/predict": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What If
         * @description Predict and explain an edited text under any version, without storing anything.
         */
        post: operations["what_if_api_projects__project_id__predict_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/slices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Slices
         * @description Saved example filters of the project.
         */
        get: operations["list_slices_api_projects__project_id__slices_get"];
        put?: never;
        /**
         * Save Slice
         * @description Save (or replace) a named filter of the examples route.
         */
        post: operations["save_slice_api_projects__project_id__slices_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/slices/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete Slice
         * @description Forget a saved filter (404 if there is none of that name).
         */
        delete: operations["delete_slice_api_projects__project_id__slices__name__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/task-feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Task Feedback
         * @description Add / remove / reset a word for the whole task (optionally one gold label, and a prediction scope).
         */
        put: operations["set_task_feedback_api_projects__project_id__task_feedback_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Versions
         * @description Every version of the project by number, with lineage (parent), metrics and feedback snapshot.
         */
        get: operations["list_versions_api_projects__project_id__versions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/words": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Words
         * @description Task explanation: words ranked by mean importance, count or suspicion (importance x label skew).
         */
        get: operations["list_words_api_projects__project_id__words_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/words/{word}/examples": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Word Examples
         * @description Examples whose explanation contains ``word``, with the word's positions to highlight.
         */
        get: operations["word_examples_api_projects__project_id__words__word__examples_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create Project From Archive
         * @description Create a project from an uploaded model archive (size-limited by ``XMD_MAX_UPLOAD_MB``).
         */
        post: operations["create_project_from_archive_api_projects_upload_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Users
         * @description Every user and their role.
         */
        get: operations["list_users_api_users_get"];
        put?: never;
        /**
         * Create User
         * @description Create a user with a first token (409 if the name is taken).
         */
        post: operations["create_user_api_users_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create Token
         * @description Another token for a user (e.g. one per script).
         */
        post: operations["create_token_api_users__user_id__tokens_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions/{version_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Version
         * @description One model version.
         */
        get: operations["get_version_api_versions__version_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions/{version_id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download
         * @description The version's model directory (weights, tokenizer, model card) as a .tar.gz; loads with
         *     ``from_pretrained`` after extraction, nothing of xmd's needed. Besides a bearer token it accepts a
         *     signed ``?link=`` from ``POST …/download-link`` (or ``?token=``), so that a plain browser link works;
         *     both are redacted from access logs.
         */
        get: operations["download_api_versions__version_id__download_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/versions/{version_id}/download-link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Download Link
         * @description A download URL that works for a few minutes without any token in it, for a plain browser link.
         *     Refuses at once when the version cannot be downloaded (not ready, files missing).
         */
        post: operations["download_link_api_versions__version_id__download_link_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * Action
         * @description What a person asks of a word: the model should rely on it (add) or not (remove).
         * @enum {string}
         */
        Action: "add" | "remove" | "reset";
        /** Body_create_project_from_archive_api_projects_upload_post */
        Body_create_project_from_archive_api_projects_upload_post: {
            /**
             * Archive
             * @description .zip or .tar.gz of a save_pretrained folder
             */
            archive: string;
            /**
             * Description
             * @default
             */
            description?: string;
            /**
             * Labels
             * @description comma-separated or a JSON list
             */
            labels?: string | null;
            /** Name */
            name: string;
        };
        /** Body_preview_dataset_api_projects__project_id__datasets_preview_post */
        Body_preview_dataset_api_projects__project_id__datasets_preview_post: {
            /**
             * File
             * @description CSV, TSV, JSONL, JSON or Parquet
             */
            file: string;
            /**
             * N Rows
             * @default 10
             */
            n_rows?: number;
        };
        /** Body_upload_dataset_api_projects__project_id__datasets_post */
        Body_upload_dataset_api_projects__project_id__datasets_post: {
            /**
             * File
             * @description CSV, TSV, JSONL, JSON or Parquet
             */
            file: string;
            /** Id Column */
            id_column?: string | null;
            /**
             * Label Column
             * @default label
             */
            label_column?: string | null;
            /** Name */
            name?: string | null;
            /** @default train */
            role?: components["schemas"]["DatasetRole"];
            /**
             * Text Column
             * @default text
             */
            text_column?: string;
        };
        /** CompareOut */
        CompareOut: {
            a: components["schemas"]["VersionOut"];
            b: components["schemas"]["VersionOut"];
            /** Example */
            example?: {
                [key: string]: components["schemas"]["ExplanationOut"];
            } | null;
            /** Metrics */
            metrics: {
                [key: string]: unknown;
            };
            /** Shares */
            shares: {
                [key: string]: unknown;
            } | null;
        };
        /** DatasetOut */
        DatasetOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /** Label Column */
            label_column: string | null;
            /** Label Counts */
            label_counts: {
                [key: string]: number;
            };
            /** N Examples */
            n_examples: number;
            /** Name */
            name: string;
            /** Project Id */
            project_id: number;
            role: components["schemas"]["DatasetRole"];
            /** Source Name */
            source_name: string | null;
            /** Text Column */
            text_column: string;
        };
        /**
         * DatasetRole
         * @description ``train`` examples are explained and retrained on; ``eval`` sets measure before/after.
         * @enum {string}
         */
        DatasetRole: "train" | "eval";
        /** DownloadLinkOut */
        DownloadLinkOut: {
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /** Url */
            url: string;
        };
        /** EvaluateIn */
        EvaluateIn: {
            /**
             * Dataset Ids
             * @description default: every eval dataset
             */
            dataset_ids?: number[] | null;
            /** Version Id */
            version_id: number;
        };
        /** EventOut */
        EventOut: {
            action: components["schemas"]["Action"];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Example Id */
            example_id: number | null;
            /** Id */
            id: number;
            /** Key */
            key: string;
            /** Label */
            label: number | null;
            level: components["schemas"]["FeedbackLevel"];
            scope: components["schemas"]["Scope"] | null;
            /** User */
            user: string | null;
            /** Word */
            word: string | null;
            /** Word Index */
            word_index: number | null;
        };
        /** ExampleOut */
        ExampleOut: {
            /** Dataset Id */
            dataset_id: number;
            /** Ext Id */
            ext_id: string;
            /** Id */
            id: number;
            /** Label */
            label: number | null;
            /** Label Name */
            label_name: string | null;
            /** Meta */
            meta: {
                [key: string]: unknown;
            };
            /**
             * N Feedback
             * @default 0
             */
            n_feedback?: number;
            /** @description from the stored explanation, when there is one */
            prediction?: components["schemas"]["Prediction"] | null;
            /** Text */
            text: string;
        };
        /** ExamplePage */
        ExamplePage: {
            /** Items */
            items: components["schemas"]["ExampleOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** ExplainIn */
        ExplainIn: {
            /**
             * Chunk Size
             * @default 256
             */
            chunk_size?: number;
            /**
             * Dataset Id
             * @description default: every training dataset
             */
            dataset_id?: number | null;
            /** Method */
            method?: string | null;
            /** Version Id */
            version_id?: number | null;
        };
        /** ExplanationOut */
        ExplanationOut: {
            /** Example Id */
            example_id: number | null;
            /** Label */
            label?: number | null;
            /** Label Name */
            label_name?: string | null;
            /**
             * Marks
             * @description feedback on this example's words
             */
            marks?: components["schemas"]["WordMark"][];
            /** Method */
            method: string;
            /** N Seen */
            n_seen: number;
            /**
             * Prediction
             * @description the predicted class (argmax of probs)
             */
            prediction: number;
            /** Probs */
            probs: number[];
            /** Scores */
            scores: number[];
            /**
             * Shares
             * @description |score| / sum |score| per example: the scale feedback targets
             */
            shares: number[];
            /** Spans */
            spans: [
                number,
                number
            ][];
            /** Target */
            target: number;
            /** Target Name */
            target_name: string;
            /** Text */
            text: string;
            /** Truncated */
            truncated: boolean;
            /** Version Id */
            version_id: number;
            /** Words */
            words: string[];
        };
        /**
         * FeedbackLevel
         * @enum {string}
         */
        FeedbackLevel: "instance" | "task";
        /** FeedbackOut */
        FeedbackOut: {
            action: components["schemas"]["Action"];
            /** Example Id */
            example_id: number | null;
            /** Id */
            id: number;
            /** Key */
            key: string;
            /** Label */
            label: number | null;
            level: components["schemas"]["FeedbackLevel"];
            scope: components["schemas"]["Scope"] | null;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /** Updated By */
            updated_by: string | null;
            /** Word */
            word: string | null;
            /** Word Index */
            word_index: number | null;
        };
        /** FeedbackPage */
        FeedbackPage: {
            /** Items */
            items: components["schemas"]["FeedbackOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /** ImportIn */
        ImportIn: {
            /**
             * Dataset Id
             * @description instance entries name examples of this dataset by their file id
             */
            dataset_id: number;
            /**
             * Feedback
             * @description the export format: {instance: [...], task: [...]}
             */
            feedback: {
                [key: string]: unknown;
            };
        };
        /** InstanceIn */
        InstanceIn: {
            action: components["schemas"]["Action"];
            /**
             * Word Index
             * @description position of the word in the example (as in the explanation)
             */
            word_index: number;
        };
        /**
         * JobKind
         * @enum {string}
         */
        JobKind: "explain" | "retrain" | "evaluate" | "push";
        /** JobOut */
        JobOut: {
            /** Cancel Requested */
            cancel_requested: boolean;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Epoch */
            epoch: number | null;
            /** Error */
            error: string | null;
            /** Finished At */
            finished_at: string | null;
            /** Heartbeat At */
            heartbeat_at: string | null;
            /** Id */
            id: string;
            kind: components["schemas"]["JobKind"];
            /** Params */
            params: {
                [key: string]: unknown;
            };
            /** Progress */
            progress: number;
            /** Project Id */
            project_id: number | null;
            /** Result */
            result: {
                [key: string]: unknown;
            } | null;
            /** Started At */
            started_at: string | null;
            status: components["schemas"]["JobStatus"];
            /** Step */
            step: number | null;
            /** Total Steps */
            total_steps: number | null;
            /** Worker Host */
            worker_host: string | null;
        };
        /**
         * JobStatus
         * @enum {string}
         */
        JobStatus: "queued" | "running" | "succeeded" | "failed" | "cancelled";
        /** MetricOut */
        MetricOut: {
            /** Epoch */
            epoch: number | null;
            /** Er Loss */
            er_loss: number | null;
            /** Id */
            id: number;
            /** Loss */
            loss: number | null;
            /** Lr */
            lr: number | null;
            /** Step */
            step: number;
            /** Task Loss */
            task_loss: number | null;
        };
        /**
         * ModelKind
         * @enum {string}
         */
        ModelKind: "base" | "debugged";
        /**
         * ModelStatus
         * @enum {string}
         */
        ModelStatus: "ready" | "training" | "failed";
        /** Page[DatasetOut] */
        Page_DatasetOut_: {
            /** Items */
            items: components["schemas"]["DatasetOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[EventOut] */
        Page_EventOut_: {
            /** Items */
            items: components["schemas"]["EventOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[JobOut] */
        Page_JobOut_: {
            /** Items */
            items: components["schemas"]["JobOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[MetricOut] */
        Page_MetricOut_: {
            /** Items */
            items: components["schemas"]["MetricOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[ProjectOut] */
        Page_ProjectOut_: {
            /** Items */
            items: components["schemas"]["ProjectOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[Slice] */
        Page_Slice_: {
            /** Items */
            items: components["schemas"]["Slice"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[UserOut] */
        Page_UserOut_: {
            /** Items */
            items: components["schemas"]["UserOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[VersionOut] */
        Page_VersionOut_: {
            /** Items */
            items: components["schemas"]["VersionOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Prediction */
        Prediction: {
            /** Correct */
            correct: boolean | null;
            /** Label */
            label: number;
            /** Label Name */
            label_name: string;
            /** Probs */
            probs: number[];
        };
        /** Preview */
        Preview: {
            /** Columns */
            columns: string[];
            /** Format */
            format: string;
            /** N Rows */
            n_rows: number;
            /** Rows */
            rows: {
                [key: string]: unknown;
            }[];
        };
        /** ProjectCreate */
        ProjectCreate: {
            /**
             * Description
             * @default
             */
            description?: string;
            /**
             * Hub Id
             * @description a Hugging Face Hub model id
             */
            hub_id?: string | null;
            /**
             * Labels
             * @description class names in the model's order; default: the model's own id2label
             */
            labels?: string[] | null;
            /**
             * Model Path
             * @description a save_pretrained directory
             */
            model_path?: string | null;
            /** Name */
            name: string;
        };
        /** ProjectOut */
        ProjectOut: {
            /** Base Version Id */
            base_version_id: number | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Description */
            description: string;
            /** Id */
            id: number;
            /** Labels */
            labels: string[];
            /** Latest Version Id */
            latest_version_id: number | null;
            /** Model Source */
            model_source: string;
            /** N Datasets */
            n_datasets: number;
            /** N Examples */
            n_examples: number;
            /** N Feedback */
            n_feedback: number;
            /** Name */
            name: string;
        };
        /** PushIn */
        PushIn: {
            /**
             * Private
             * @default true
             */
            private?: boolean;
            /** Repo Id */
            repo_id: string;
            /**
             * Token
             * @description a Hugging Face write token; used for this push only, never stored
             */
            token?: string | null;
            /** Version Id */
            version_id: number;
        };
        /**
         * RetrainIn
         * @description A retrain: what it starts from, and every field of the core's retrain settings.
         */
        RetrainIn: {
            /**
             * Add Margin
             * @description nats that hiding an 'add' word must cost
             * @default 0.5
             */
            add_margin?: number;
            /**
             * Attribution Weight
             * @description weight μ of the attribution term with objective 'both'
             * @default 5
             */
            attribution_weight?: number;
            /**
             * Batch Size
             * @description examples per optimiser step (before accumulation)
             * @default 16
             */
            batch_size?: number;
            /**
             * Epochs
             * @description passes over the training data
             * @default 2
             */
            epochs?: number;
            /**
             * Eval Dataset Ids
             * @description default: every eval dataset
             */
            eval_dataset_ids?: number[] | null;
            /**
             * Grad Accum
             * @description gradient accumulation steps
             * @default 1
             */
            grad_accum?: number;
            /**
             * Lam
             * @description λ, the weight of the ER term
             * @default 1
             */
            lam?: number;
            /**
             * Loss
             * @description loss of the attribution term
             * @default mse
             * @enum {string}
             */
            loss?: "mse" | "mae" | "huber";
            /**
             * Lr
             * @description peak learning rate (linear warm-up, then decay)
             * @default 0.00003
             */
            lr?: number;
            /**
             * Max Grad Norm
             * @description gradient clipping norm
             * @default 1
             */
            max_grad_norm?: number;
            /**
             * Max Length
             * @description truncate inputs to this many tokens
             * @default 128
             */
            max_length?: number;
            /**
             * Method
             * @description attribution in the loss
             * @default grad_x_input
             * @enum {string}
             */
            method?: "grad_x_input" | "saliency";
            /**
             * Mixed Precision
             * @description bf16 autocast (CUDA only)
             * @default false
             */
            mixed_precision?: boolean;
            /**
             * Objective
             * @description erasure consistency, the paper's attribution matching, or both (measured best)
             * @default both
             * @enum {string}
             */
            objective?: "erasure" | "attribution" | "both";
            /**
             * Seed
             * @description seed for shuffling and initialisation
             * @default 0
             */
            seed?: number;
            /**
             * Train Dataset Ids
             * @description default: every training dataset
             */
            train_dataset_ids?: number[] | null;
            /**
             * Version Id
             * @description the version to start from (default: latest ready)
             */
            version_id?: number | null;
            /**
             * Warmup Ratio
             * @description share of the steps spent warming up
             * @default 0.06
             */
            warmup_ratio?: number;
            /**
             * Weight Decay
             * @description AdamW weight decay
             * @default 0.01
             */
            weight_decay?: number;
        };
        /**
         * Role
         * @description What a user may do: admins manage projects and users, annotators give feedback, viewers look.
         * @enum {string}
         */
        Role: "admin" | "annotator" | "viewer";
        /**
         * Scope
         * @description Which training examples a task-level feedback applies to, by the model's prediction.
         * @enum {string}
         */
        Scope: "correct" | "incorrect" | "all";
        /** Slice */
        Slice: {
            /** Dataset Id */
            dataset_id?: number | null;
            /**
             * Filters
             * @description query parameters of the examples route
             */
            filters?: {
                [key: string]: unknown;
            };
            /** Name */
            name: string;
        };
        /** TaskIn */
        TaskIn: {
            action: components["schemas"]["Action"];
            /**
             * Label
             * @description only examples of this gold label (default: all)
             */
            label?: number | null;
            /**
             * @description all, or only correctly / incorrectly predicted examples
             * @default all
             */
            scope?: components["schemas"]["Scope"];
            /** Word */
            word: string;
        };
        /** TokenCreate */
        TokenCreate: {
            /**
             * Name
             * @default
             */
            name?: string;
        };
        /** TokenOut */
        TokenOut: {
            /**
             * Token
             * @description the secret; shown only in this response
             */
            token: string;
            user: components["schemas"]["UserOut"];
        };
        /** UserCreate */
        UserCreate: {
            /** Name */
            name: string;
            /** @default viewer */
            role?: components["schemas"]["Role"];
        };
        /** UserOut */
        UserOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /** Name */
            name: string;
            role: components["schemas"]["Role"];
        };
        /** ValidationError */
        ValidationError: {
            /** Context */
            ctx?: Record<string, never>;
            /** Input */
            input?: unknown;
            /** Location */
            loc: (string | number)[];
            /** Message */
            msg: string;
            /** Error Type */
            type: string;
        };
        /** VersionOut */
        VersionOut: {
            /** Config */
            config: {
                [key: string]: unknown;
            };
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Feedback Snapshot */
            feedback_snapshot: {
                [key: string]: unknown;
            } | null;
            /** Id */
            id: number;
            kind: components["schemas"]["ModelKind"];
            /** Metrics */
            metrics: {
                [key: string]: unknown;
            };
            /** Name */
            name: string;
            /** Parent Id */
            parent_id: number | null;
            /** Project Id */
            project_id: number;
            /** Retrain */
            retrain?: {
                [key: string]: unknown;
            } | null;
            status: components["schemas"]["ModelStatus"];
            /** Version */
            version: number;
        };
        /** WhatIf */
        WhatIf: {
            /** Method */
            method?: string | null;
            /** Text */
            text: string;
            /** Version Id */
            version_id?: number | null;
        };
        /** WordExample */
        WordExample: {
            /** Dataset Id */
            dataset_id: number;
            /** Ext Id */
            ext_id: string;
            /**
             * Highlight
             * @description positions (word indices) of the word in this example
             */
            highlight: number[];
            /** Id */
            id: number;
            /** Label */
            label: number | null;
            /** Label Name */
            label_name: string | null;
            /** Meta */
            meta: {
                [key: string]: unknown;
            };
            /**
             * N Feedback
             * @default 0
             */
            n_feedback?: number;
            /** @description from the stored explanation, when there is one */
            prediction?: components["schemas"]["Prediction"] | null;
            /** Spans */
            spans: [
                number,
                number
            ][];
            /** Text */
            text: string;
        };
        /** WordExamplePage */
        WordExamplePage: {
            /** Items */
            items: components["schemas"]["WordExample"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** WordFeedback */
        WordFeedback: {
            /** Action */
            action: string;
            /** Label */
            label: number | null;
            /** Scope */
            scope: string | null;
        };
        /** WordMark */
        WordMark: {
            /** Action */
            action: string;
            /** Label */
            label?: number | null;
            /**
             * Level
             * @enum {string}
             */
            level: "instance" | "task";
            /** Scope */
            scope?: string | null;
            /** Word Index */
            word_index: number;
        };
        /**
         * WordOut
         * @description A ranked word: the core's WordStats field for field, its suspicious flag, and the task feedback on it.
         */
        WordOut: {
            /** Count */
            count: number;
            /** Feedback */
            feedback: components["schemas"]["WordFeedback"][];
            /** Label Counts */
            label_counts: number[];
            /** Mean Importance */
            mean_importance: number;
            /** Mean Signed */
            mean_signed: number;
            /** Skew */
            skew: number;
            /** Skew Label */
            skew_label: number | null;
            /** Skew Label Name */
            skew_label_name: string | null;
            /** Suspicion */
            suspicion: number;
            /**
             * Suspicious
             * @description the core's rule (xmd.core.aggregate.is_suspicious), not the client's
             */
            suspicious: boolean;
            /** Word */
            word: string;
        };
        /** WordPage */
        WordPage: {
            /** Items */
            items: components["schemas"]["WordOut"][];
            /** Limit */
            limit: number;
            /** Method */
            method: string;
            /**
             * N Examples
             * @description examples aggregated into this ranking
             */
            n_examples: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
            /** Version Id */
            version_id: number;
        };
        /** WriteOut */
        WriteOut: {
            action: components["schemas"]["Action"];
            /** @description the key's feedback now (null after a reset) */
            current: components["schemas"]["FeedbackOut"] | null;
            /** Event Id */
            event_id: number;
            /** Key */
            key: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    delete_dataset_api_datasets__dataset_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_examples_api_datasets__dataset_id__examples_get: {
        parameters: {
            query?: {
                correctness?: "correct" | "incorrect" | "all";
                has_feedback?: boolean | null;
                label?: number | null;
                limit?: number;
                method?: string | null;
                offset?: number;
                /** @description case-insensitive regular expression */
                regex?: string | null;
                /** @description case-insensitive substring */
                search?: string | null;
                version_id?: number | null;
            };
            header?: never;
            path: {
                dataset_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExamplePage"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    get_example_api_examples__example_id__get: {
        parameters: {
            query?: {
                method?: string | null;
                version_id?: number | null;
            };
            header?: never;
            path: {
                example_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExampleOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    get_explanation_api_examples__example_id__explanation_get: {
        parameters: {
            query?: {
                method?: string | null;
                version_id?: number | null;
            };
            header?: never;
            path: {
                example_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExplanationOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    set_instance_feedback_api_examples__example_id__feedback_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                example_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InstanceIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WriteOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    health_api_health_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
        };
    };
    get_job_api_jobs__job_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    cancel_job_api_jobs__job_id__cancel_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    job_events_api_jobs__job_id__events_get: {
        parameters: {
            query?: {
                /** @description for EventSource, which cannot send headers */
                token?: string | null;
            };
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    get_metrics_api_jobs__job_id__metrics_get: {
        parameters: {
            query?: {
                after?: number | null;
                limit?: number;
            };
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_MetricOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    me_api_me_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string | number;
                    };
                };
            };
        };
    };
    list_projects_api_projects_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_ProjectOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    create_project_api_projects_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    get_project_api_projects__project_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    delete_project_api_projects__project_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    compare_api_projects__project_id__compare_get: {
        parameters: {
            query: {
                a: number;
                b: number;
                example_id?: number | null;
                method?: string | null;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompareOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_datasets_api_projects__project_id__datasets_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_DatasetOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    upload_dataset_api_projects__project_id__datasets_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_upload_dataset_api_projects__project_id__datasets_post"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatasetOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    preview_dataset_api_projects__project_id__datasets_preview_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_preview_dataset_api_projects__project_id__datasets_preview_post"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preview"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_feedback_api_projects__project_id__feedback_get: {
        parameters: {
            query?: {
                example_id?: number | null;
                level?: components["schemas"]["FeedbackLevel"] | null;
                limit?: number;
                offset?: number;
                word?: string | null;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FeedbackPage"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_events_api_projects__project_id__feedback_events_get: {
        parameters: {
            query?: {
                after_id?: number | null;
                before_id?: number | null;
                /** @description one key's history */
                key?: string | null;
                limit?: number;
                order?: "asc" | "desc";
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_EventOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    export_feedback_api_projects__project_id__feedback_export_get: {
        parameters: {
            query?: {
                dataset_id?: number | null;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    import_feedback_api_projects__project_id__feedback_import_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ImportIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: number;
                    };
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_jobs_api_projects__project_id__jobs_get: {
        parameters: {
            query?: {
                kind?: components["schemas"]["JobKind"] | null;
                limit?: number;
                /** @description items to skip */
                offset?: number;
                status?: components["schemas"]["JobStatus"] | null;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_JobOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    start_evaluate_api_projects__project_id__jobs_evaluate_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EvaluateIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    start_explain_api_projects__project_id__jobs_explain_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExplainIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    start_push_api_projects__project_id__jobs_push_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PushIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    start_retrain_api_projects__project_id__jobs_retrain_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RetrainIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    what_if_api_projects__project_id__predict_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WhatIf"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExplanationOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_slices_api_projects__project_id__slices_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_Slice_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    save_slice_api_projects__project_id__slices_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Slice"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Slice"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    delete_slice_api_projects__project_id__slices__name__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    set_task_feedback_api_projects__project_id__task_feedback_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WriteOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_versions_api_projects__project_id__versions_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_VersionOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_words_api_projects__project_id__words_get: {
        parameters: {
            query?: {
                label?: number | null;
                limit?: number;
                method?: string | null;
                min_count?: number;
                offset?: number;
                search?: string | null;
                sort?: "importance" | "count" | "suspicion";
                version_id?: number | null;
            };
            header?: never;
            path: {
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WordPage"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    word_examples_api_projects__project_id__words__word__examples_get: {
        parameters: {
            query?: {
                correctness?: "correct" | "incorrect" | "all";
                label?: number | null;
                limit?: number;
                method?: string | null;
                offset?: number;
                version_id?: number | null;
            };
            header?: never;
            path: {
                project_id: number;
                word: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WordExamplePage"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    create_project_from_archive_api_projects_upload_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_create_project_from_archive_api_projects_upload_post"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    list_users_api_users_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Page_UserOut_"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    create_user_api_users_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    create_token_api_users__user_id__tokens_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    get_version_api_versions__version_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                version_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VersionOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    download_api_versions__version_id__download_get: {
        parameters: {
            query?: {
                /** @description a signed link from POST /api/versions/{version_id}/download-link */
                link?: string | null;
                /** @description an API token, for links that cannot send headers */
                token?: string | null;
            };
            header?: never;
            path: {
                version_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    download_link_api_versions__version_id__download_link_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                version_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DownloadLinkOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
}
