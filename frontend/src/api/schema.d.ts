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
         * @description Delete a dataset, its examples, their explanations (out of the rankings) and their feedback (the
         *     event log keeps the feedback's history). 409 while a job of the project is queued or running.
         */
        delete: operations["delete_dataset_api_datasets__dataset_id__delete"];
        options?: never;
        head?: never;
        /**
         * Rename Dataset
         * @description Rename a dataset (409 if the project has another dataset of that name).
         */
        patch: operations["rename_dataset_api_datasets__dataset_id__patch"];
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
    "/api/examples/{example_id}/done": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark Done
         * @description The reader is done with this example: in blind mode the others' marks show from now on.
         */
        post: operations["mark_done_api_examples__example_id__done_post"];
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
    "/api/examples/{example_id}/marks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Example Marks
         * @description Everyone's instance marks on one example, with their names, as the reader may see them: in blind
         *     mode an annotator gets their own until they mark the example done (``hidden`` says so).
         */
        get: operations["example_marks_api_examples__example_id__marks_get"];
        put?: never;
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
         * @description Liveness, without authentication, within about half a second even when every worker thread and
         *     pooled connection is busy (``xmd.http.health``): ``degraded`` when the database is slow or down.
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
    "/api/health/hub": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Hub Health
         * @description Whether the Hugging Face Hub can be reached (``reachable``, ``unreachable``, or ``offline``
         *     when HF_HUB_OFFLINE is set): projects from a Hub id and pushes need it. Cached for a minute.
         *     ``token``: whether this server has ``HF_TOKEN`` (``set`` / ``missing``), so the push form can say
         *     that a token must be entered; the token itself never leaves the server.
         */
        get: operations["hub_health_api_health_hub_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List All Jobs
         * @description Every job, newest first, including those of no project (``prepare_demo``: ``xmd serve --demo``
         *     setting up the demo project, which the project list shows while it runs). ``workers``: an embedded
         *     worker of ``xmd serve`` that died lately, and its restart.
         */
        get: operations["list_all_jobs_api_jobs_get"];
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
         * @description Status, progress (0–100, step, epoch), the running phase and ETA, timings, worker, error and result
         *     of a job; a queued one also says its place in its queue and the job it waits behind.
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
         *     ``end``. Browsers' EventSource cannot set headers, so ``?token=`` is accepted here too. The streams
         *     of a process share one database poller (:mod:`xmd.jobs.watch`); a user may hold
         *     ``XMD_EVENT_STREAMS_PER_USER`` streams at once (429 past that).
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
         * @description Delete a project, everything it owns in the database, and its stored model versions.
         *
         *     Refused with 409 while any of its jobs is queued or running (cancel them first, ``POST
         *     /api/jobs/{id}/cancel``): a worker must never go on training for a project that no longer exists.
         */
        delete: operations["delete_project_api_projects__project_id__delete"];
        options?: never;
        head?: never;
        /**
         * Update Project
         * @description Rename a project or change its description (409 if another project has the name).
         */
        patch: operations["update_project_api_projects__project_id__patch"];
        trace?: never;
    };
    "/api/projects/{project_id}/agreement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Agreement
         * @description Token-level agreement (Cohen's κ per pair, Fleiss' κ, Krippendorff's α), per word (a page, most
         *     disputed first) and on the task-level words; kept up to date per change, not recomputed. In blind
         *     mode an annotator gets the numbers only: the task words' list says who set what, so it is left out.
         */
        get: operations["get_agreement_api_projects__project_id__agreement_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/base-model": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Base Model
         * @description Record the model this project's model was fine-tuned from, and its recipe (replacing any recorded
         *     one): the retrain can then run the ``deletion_base`` control. A Hub id is checked for its syntax and
         *     fetched when the control runs; a server path follows the same rule as a project's model (422).
         */
        put: operations["set_base_model_api_projects__project_id__base_model_put"];
        post?: never;
        /**
         * Forget Base Model
         * @description Forget the recorded base model (the deletion_base control is then unavailable); idempotent.
         */
        delete: operations["forget_base_model_api_projects__project_id__base_model_delete"];
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
    "/api/projects/{project_id}/compare/examples": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compare Examples
         * @description Examples worth showing under versions ``a`` and ``b`` side by side, one group a page:
         *     ``feedback`` (per-example feedback), ``task_words`` (they contain a task-level feedback word),
         *     ``changed`` (the largest change of the predicted probabilities, among at most 20,000 examples both
         *     versions explained). ``offset + limit`` is at most 500.
         */
        get: operations["compare_examples_api_projects__project_id__compare_examples_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/conflicts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Conflicts
         * @description Examples' words and task words where the annotators disagree, most disputed first (reviewer).
         */
        get: operations["list_conflicts_api_projects__project_id__conflicts_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/conflicts/decide": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide Conflict
         * @description Accept (the most chosen action, or ``action`` on a tie), reject, or edit one disputed key; the
         *     decision is an event in the log with the reviewer's name, and the ``reviewed`` policy uses it.
         */
        post: operations["decide_conflict_api_projects__project_id__conflicts_decide_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/consensus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Consensus
         * @description What a retrain would train on now, by the project's policy: the counts (contributors, ties left
         *     out, reviewed keys) and a page of the kept marks (``limit=0``: the counts only). Bounded: at most
         *     20,000 current rows are read (``window.SCAN_CAP``), whole examples by id; ``capped`` when there were
         *     more. In blind mode an annotator gets the counts only: the marks would show the others'.
         */
        get: operations["get_consensus_api_projects__project_id__consensus_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/coverage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Coverage
         * @description How many training examples are explained under a version (default: latest ready) and method, per
         *     training set, and the explain job filling them if one is queued or running.
         */
        get: operations["coverage_api_projects__project_id__coverage_get"];
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
    "/api/projects/{project_id}/examples/find": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find Example
         * @description The example with the id every screen shows (its id in its file, e.g. ``train-7``), for wherever
         *     a person types an example id; ``dataset_id`` picks one when several datasets use the id.
         */
        get: operations["find_example_api_projects__project_id__examples_find_get"];
        put?: never;
        post?: never;
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
         * @description Current feedback (everyone's: one row per person and key), in the order it was given, with who
         *     gave it and when. In blind mode an annotator sees their own, and the others' only on examples
         *     they marked done.
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
    "/api/projects/{project_id}/feedback/dataset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export Dataset
         * @description Everyone's feedback as a Hugging Face dataset (each annotator's token marks, the consensus, the
         *     task-level words with who, the reviewers' decisions), ``save_to_disk``'s folder ``feedback/`` packed
         *     as a .tar.gz.
         */
        get: operations["export_dataset_api_projects__project_id__feedback_dataset_get"];
        put?: never;
        /**
         * Import Dataset
         * @description Read an exported feedback dataset into this project's training set: each annotator's marks as
         *     theirs (accounts by name), who saw what as a queue of finished items, each review as its reviewer's.
         */
        post: operations["import_dataset_api_projects__project_id__feedback_dataset_post"];
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
         *     first with ``after_id`` paging, or ``order=desc`` with ``before_id`` for the latest clicks. In
         *     blind mode an annotator sees their own events, and the others' only on examples they marked done.
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
         * @description The current feedback as the core's JSON (instance entries by example file id, with their words):
         *     everyone's (a key's later mark wins), or the reader's own (``mine``; always, for an annotator in
         *     blind mode).
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
         * @description Record an exported feedback file, or feedback simulated from a rationale column or a word list,
         *     as new events, all or nothing (422 naming the first problem). ``preview`` writes nothing and says
         *     how many examples and words the import touches (a rationale preview: of the dataset's first rows,
         *     ``sample_rows``). Committing rationales of a dataset larger than ``XMD_IMPORT_SYNC_ROWS`` rows
         *     answers 202 with ``job_id``: the import runs as a job (progress, cancel) after a check of a sample.
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
         * @description The project's jobs, newest first; ``workers``: an embedded worker of ``xmd serve`` that died lately.
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
    "/api/projects/{project_id}/jobs/forecast": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start Forecast
         * @description Forecast a retrain's effect: the eval sets predicted with the marked words erased, and with as many
         *     random words erased (inference only; the result is the job's ``result.forecast``).
         */
        post: operations["start_forecast_api_projects__project_id__jobs_forecast_post"];
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
         * @description Push a version to the Hugging Face Hub; the token is stored nowhere whole (xmd.jobs.secrets).
         */
        post: operations["start_push_api_projects__project_id__jobs_push_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{project_id}/jobs/push-feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Push Feedback
         * @description Push the feedback dataset beside the model ``repo_id``: into the dataset repository
         *     ``<repo_id>-feedback`` (created if missing), one commit; the model's card then links it.
         */
        post: operations["push_feedback_api_projects__project_id__jobs_push_feedback_post"];
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
    "/api/projects/{project_id}/jobs/retrain/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Estimate Retrain
         * @description The phases a retrain with these settings will run and its expected duration, from the rates the
         *     last retrain measured (nothing is started).
         */
        post: operations["estimate_retrain_api_projects__project_id__jobs_retrain_estimate_post"];
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
    "/api/projects/{project_id}/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Queues
         * @description The project's queues with progress per annotator (done / skipped / left): a grouped count over
         *     each queue's items, so at most :data:`QUEUES_PAGE` queues a page.
         */
        get: operations["list_queues_api_projects__project_id__queues_get"];
        put?: never;
        /**
         * Create Queue
         * @description Assign a dataset, a saved slice or the examples of some words to annotators, each example to
         *     ``overlap`` of them, in the order ``order`` (its rule is in the answer).
         */
        post: operations["create_queue_api_projects__project_id__queues_post"];
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
    "/api/projects/{project_id}/team/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Team Settings
         * @description How the project's consensus is drawn (policy, k) and whether annotators work blind.
         */
        get: operations["get_team_settings_api_projects__project_id__team_settings_get"];
        /**
         * Put Team Settings
         * @description Change the consensus policy or blind mode (admin): nobody's marks change, only how they combine.
         */
        put: operations["put_team_settings_api_projects__project_id__team_settings_put"];
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
         * @description Task explanation: words ranked by mean importance, count or suspicion (importance x label skew),
         *     each with its task feedback as the reader may see it (``marks``: the consensus, or blind their own).
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
    "/api/projects/from-data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create Project From Data
         * @description Start a project from labelled data: a ``from_data`` job fine-tunes the base model on it, then makes
         *     the project (version 1, the base model recorded, the data as its training set) and explains the data.
         *     Everything is checked first (422: columns, labels, settings, base model; 413: too large; 409: the
         *     name), so a refused request changes nothing.
         */
        post: operations["create_project_from_data_api_projects_from_data_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/from-data/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Preview Training Data
         * @description Columns, first rows and the guessed text and label columns of a file a project is to start from.
         */
        post: operations["preview_training_data_api_projects_from_data_preview_post"];
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
    "/api/queues/{queue_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Queue */
        get: operations["get_queue_api_queues__queue_id__get"];
        put?: never;
        post?: never;
        /**
         * Delete Queue
         * @description Drop a queue and its assignments (the marks people gave stay theirs, and so does who finished
         *     which example: ``feedback_done``, which the agreement reads).
         */
        delete: operations["delete_queue_api_queues__queue_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/queues/{queue_id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Items
         * @description A page of the caller's items by rank (an admin: anyone's with ``user_id``, or everyone's).
         */
        get: operations["list_items_api_queues__queue_id__items_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/queues/{queue_id}/items/{example_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Item Status
         * @description Mark the caller's item done, skipped, or left again (recorded in the queue's log).
         */
        put: operations["set_item_status_api_queues__queue_id__items__example_id__put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/queues/{queue_id}/next": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Next Example
         * @description The caller's next example in this queue (resumes where they left off); with ``counts``, also
         *     their done / skipped / left (a count over their part: ask for it when showing it, not on every step).
         */
        get: operations["next_example_api_queues__queue_id__next_get"];
        put?: never;
        post?: never;
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
    "/api/users/{user_id}": {
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
         * Delete User
         * @description Delete a user and their tokens; the feedback they gave stays, without its author (409 for the last admin).
         */
        delete: operations["delete_user_api_users__user_id__delete"];
        options?: never;
        head?: never;
        /**
         * Change Role
         * @description Change a user's role (409 if that would leave no admin).
         */
        patch: operations["change_role_api_users__user_id__patch"];
        trace?: never;
    };
    "/api/users/{user_id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Tokens
         * @description A user's tokens, newest first, revoked and expired ones included (never their secrets).
         */
        get: operations["list_tokens_api_users__user_id__tokens_get"];
        put?: never;
        /**
         * Create Token
         * @description Another token for a user (e.g. one per script), optionally expiring after ``expires_in_days``.
         */
        post: operations["create_token_api_users__user_id__tokens_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}/tokens/{token_id}": {
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
         * Revoke Token
         * @description Revoke a token: it answers 401 from now on; the row stays for the record.
         */
        delete: operations["revoke_token_api_users__user_id__tokens__token_id__delete"];
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
        /**
         * AgreementOut
         * @description Token-level agreement on the examples seen by ≥ 2 people, and on the task-level words.
         */
        AgreementOut: {
            /**
             * Alpha
             * @description Krippendorff's α (nominal: none / remove / add)
             */
            alpha: number | null;
            /** Annotators */
            annotators: string[];
            /**
             * Fleiss Kappa
             * @description only when every shared token was seen by all (≥ 3) raters
             */
            fleiss_kappa: number | null;
            /** Limit */
            limit: number;
            /** N Examples */
            n_examples: number;
            /** N Tokens */
            n_tokens: number;
            /**
             * N Words
             * @description words anyone marked on a shared example (per_word pages through them)
             */
            n_words: number;
            /** Offset */
            offset: number;
            /**
             * Pairs
             * @description Cohen's κ per pair, on the tokens both saw
             */
            pairs: components["schemas"]["PairAgreementOut"][];
            /**
             * Pending
             * @description a backlog of changes is still being read in: ask again
             */
            pending: boolean;
            /**
             * Per Word
             * @description a page of words, most disputed first
             */
            per_word: components["schemas"]["WordAgreementOut"][];
            /**
             * Task
             * @description agreement on task-level words: pairs, α, the words (first 200)
             */
            task: {
                [key: string]: unknown;
            };
        };
        /**
         * BaseModelIn
         * @description The model the project's model was fine-tuned from (a Hub id, or a server path where the operator
         *     allows them), and its recipe: what the ``deletion_base`` control retrains on the cleaned texts.
         */
        BaseModelIn: {
            /**
             * Hub Id
             * @description a Hugging Face Hub model id
             */
            hub_id?: string | null;
            /**
             * Model Path
             * @description a save_pretrained directory
             */
            model_path?: string | null;
            /** @description the fine-tune settings (default: see BaseRecipe) */
            recipe?: components["schemas"]["BaseRecipe"] | null;
        };
        /** BaseModelOut */
        BaseModelOut: {
            /**
             * Kind
             * @enum {string}
             */
            kind: "hub" | "path" | "bundled";
            /**
             * Recipe
             * @description the recipe fields set; the others follow the defaults
             */
            recipe: {
                [key: string]: unknown;
            };
            /**
             * Source
             * @description the Hub id, server path or bundled model's name
             */
            source: string;
        };
        /**
         * BaseRecipe
         * @description How the base model was fine-tuned into the project's model (the core's TrainConfig fields); fields left out follow the parent's recorded fine-tune settings when xmd made it, else the retrain's.
         */
        BaseRecipe: {
            /**
             * Batch Size
             * @description examples per optimiser step (before accumulation)
             * @default 16
             */
            batch_size?: number;
            /**
             * Cuda Graphs
             * @description on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… tokens. Not with gradient accumulation; the run records whether it was used
             * @default false
             */
            cuda_graphs?: boolean;
            /**
             * Epochs
             * @description passes over the training data
             * @default 1
             */
            epochs?: number;
            /**
             * Eval Max Examples
             * @description measure each eval set on at most this many examples (a sample fixed by the seed; Results shows it)
             * @default 2000
             */
            eval_max_examples?: number;
            /**
             * Grad Accum
             * @description gradient accumulation steps
             * @default 1
             */
            grad_accum?: number;
            /**
             * Length Bucketing
             * @description batch texts of similar token length together (seeded pools of 50 batches sorted by length, batches shuffled), so a batch is padded only to its own longest text; every example still appears once per epoch
             * @default true
             */
            length_bucketing?: boolean;
            /**
             * Lr
             * @description peak learning rate (linear warm-up, then decay)
             * @default 0.00002
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
             * Mixed Precision
             * @description bf16 autocast of the training steps. Unset (auto): on a CPU that computes bf16 natively (AVX512-BF16 or AMX), where retraining ran 1.2-2.3x faster with the same effect; float32 on a GPU, where small steps ran slower in bf16. true: wherever the device computes bf16 natively; false: float32. bf16 is never emulated; the run records whether it was used
             */
            mixed_precision?: boolean | null;
            /**
             * Seed
             * @description seed for shuffling and initialisation
             * @default 0
             */
            seed?: number;
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
        /** Body_create_project_from_archive_api_projects_upload_post */
        Body_create_project_from_archive_api_projects_upload_post: {
            /**
             * Archive
             * @description .zip or .tar.gz of a save_pretrained folder
             */
            archive: string;
            /**
             * Base Model
             * @description the model this one was fine-tuned from, as the JSON of a BaseModelIn (e.g. {"hub_id": "org/base", "recipe": {"epochs": 3}}); enables the deletion_base control
             */
            base_model?: string | null;
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
        /** Body_create_project_from_data_api_projects_from_data_post */
        Body_create_project_from_data_api_projects_from_data_post: {
            /**
             * Base Model
             * @description the model to fine-tune, as JSON: {"hub_id": "org/encoder"} or {"model_path": "/models/x"} (where the server allows paths); left out: the bundled all-MiniLM-L6-v2
             */
            base_model?: string | null;
            /**
             * Description
             * @default
             */
            description?: string;
            /**
             * File
             * @description labelled data: CSV, TSV, JSONL, JSON or Parquet
             */
            file: string;
            /** Id Column */
            id_column?: string | null;
            /**
             * Label Column
             * @description its values become the model's classes
             * @default label
             */
            label_column?: string;
            /** Name */
            name: string;
            /**
             * Recipe
             * @description fine-tune settings, a BaseRecipe's JSON (default: 3 epochs at 5e-5)
             */
            recipe?: string | null;
            /**
             * Text Column
             * @default text
             */
            text_column?: string;
        };
        /** Body_import_dataset_api_projects__project_id__feedback_dataset_post */
        Body_import_dataset_api_projects__project_id__feedback_dataset_post: {
            /** Dataset Id */
            dataset_id: number;
            /**
             * File
             * @description a .tar.gz made by the export
             */
            file: string;
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
        /** Body_preview_training_data_api_projects_from_data_preview_post */
        Body_preview_training_data_api_projects_from_data_preview_post: {
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
            /**
             * Unlabelled
             * @description the file has no labels (label_column is ignored); train sets only
             * @default false
             */
            unlabelled?: boolean;
        };
        /**
         * ColumnGuess
         * @description The columns the form pre-selects (xmd.core.data.COLUMN_GUESSES, the one list).
         */
        ColumnGuess: {
            /** Id */
            id: string | null;
            /** Label */
            label: string | null;
            /** Text */
            text: string | null;
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
            /**
             * Sets
             * @description the eval sets of ``metrics``, by name
             */
            sets?: {
                [key: string]: components["schemas"]["EvalSetOut"];
            };
            /** Shares */
            shares: {
                [key: string]: unknown;
            } | null;
        };
        /** ConflictOut */
        ConflictOut: {
            /** Dataset Id */
            dataset_id?: number | null;
            /** Decided Action */
            decided_action?: string | null;
            /** Decision */
            decision?: string | null;
            /**
             * Dispute
             * @description 1 − largest group / raters: 0 all agree
             */
            dispute: number;
            /** Example Ext Id */
            example_ext_id?: string | null;
            /** Example Id */
            example_id: number | null;
            /** Key */
            key: string;
            /** Label */
            label: number | null;
            level: components["schemas"]["FeedbackLevel"];
            /**
             * Raters
             * @description people who saw it
             */
            raters: number;
            /** Scope */
            scope: string | null;
            /**
             * Votes
             * @description add / remove / none → who chose it
             */
            votes: {
                [key: string]: string[];
            };
            /** Word */
            word: string | null;
            /** Word Index */
            word_index: number | null;
        };
        /** ConflictPage */
        ConflictPage: {
            /**
             * Capped
             * @description the scan stopped at its cap: more rows exist than were read
             * @default false
             */
            capped?: boolean;
            /** Items */
            items: components["schemas"]["ConflictOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /**
         * ConsensusMarkOut
         * @description One mark of the consensus (what a retrain trains on): a word of an example, or a task word.
         */
        ConsensusMarkOut: {
            /**
             * Action
             * @enum {string}
             */
            action: "add" | "remove";
            /** Dataset Id */
            dataset_id?: number | null;
            /** Example Ext Id */
            example_ext_id?: string | null;
            /** Example Id */
            example_id: number | null;
            /** Label */
            label: number | null;
            level: components["schemas"]["FeedbackLevel"];
            /** Scope */
            scope: string | null;
            /** Word */
            word: string | null;
            /** Word Index */
            word_index: number | null;
        };
        /**
         * ConsensusOut
         * @description The consensus by the project's policy: its counts, and a page of its marks (``items``: instance
         *     marks by example and position, then task words; ``total`` counts them).
         */
        ConsensusOut: {
            /**
             * Capped
             * @description the project has more marks than one request reads: the counts and items are those of the first examples (by id), each read whole
             */
            capped: boolean;
            /**
             * Conflicts
             * @description ties the policy left out
             */
            conflicts: number;
            /**
             * Contributors
             * @description name → marks of that person's that were read
             */
            contributors: {
                [key: string]: number;
            };
            /**
             * Examples
             * @description examples whose marks were read
             */
            examples: number;
            /**
             * Hidden
             * @description blind mode: an annotator gets the counts, not the marks (items is empty)
             * @default false
             */
            hidden?: boolean;
            /**
             * Instance
             * @description instance marks the consensus keeps
             */
            instance: number;
            /** Items */
            items: components["schemas"]["ConsensusMarkOut"][];
            /** K */
            k: number | null;
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Policy */
            policy: string;
            /**
             * Reviewed
             * @description keys a reviewer has settled
             */
            reviewed: number;
            /**
             * Task
             * @description task words the consensus keeps
             */
            task: number;
            /** Total */
            total: number;
        };
        /**
         * Coverage
         * @description How much of the training data a ranking or list under one version and method is built from, so a
         *     screen never shows a ranking of 2 explained examples as if it were the whole training set's.
         */
        Coverage: {
            /**
             * Complete
             * @description every training example is explained
             */
            complete: boolean;
            /** Datasets */
            datasets: components["schemas"]["DatasetCoverage"][];
            /**
             * Explained
             * @description training examples explained under this version and method
             */
            explained: number;
            /**
             * Job Id
             * @description a queued or running job explaining this version and method
             */
            job_id: string | null;
            /** Method */
            method: string;
            /**
             * Total
             * @description training examples of the project
             */
            total: number;
            /** Version */
            version: number;
            /** Version Id */
            version_id: number;
        };
        /** DatasetCoverage */
        DatasetCoverage: {
            /** Dataset Id */
            dataset_id: number;
            /**
             * Explained
             * @description examples of this training set explained under the version and method
             */
            explained: number;
            /** Name */
            name: string;
            /** Total */
            total: number;
        };
        /** DatasetOut */
        DatasetOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Explained
             * @description per model version and method, how many of its examples are explained
             */
            explained?: components["schemas"]["ExplainedOut"][];
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
            /**
             * N Feedback
             * @description current feedback entries on its examples: a delete takes them (the event log keeps them)
             * @default 0
             */
            n_feedback?: number;
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
        /** DatasetRename */
        DatasetRename: {
            /** Name */
            name: string;
        };
        /**
         * DatasetRole
         * @description ``train`` examples are explained and retrained on; ``eval`` sets measure before/after.
         * @enum {string}
         */
        DatasetRole: "train" | "eval";
        /** DecideIn */
        DecideIn: {
            /**
             * Action
             * @description edit: the action to keep; accept: which to keep on a tie
             */
            action?: ("add" | "remove") | null;
            /**
             * Decision
             * @enum {string}
             */
            decision: "accept" | "reject" | "edit";
            /** Key */
            key: string;
        };
        /** DecideOut */
        DecideOut: {
            action: components["schemas"]["Action"] | null;
            /** Decision */
            decision: string;
            /** Event Id */
            event_id: number;
            /** Key */
            key: string;
            /** Reviewer */
            reviewer: string;
        };
        /** DoneOut */
        DoneOut: {
            /** Done */
            done: boolean;
            /** Example Id */
            example_id: number;
        };
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
        /**
         * EvalSetOut
         * @description What an eval set holds, to read its metrics right (a one-class set caps macro-F1).
         */
        EvalSetOut: {
            /**
             * Classes
             * @description gold examples per class name (classes with none left out)
             */
            classes: {
                [key: string]: number;
            };
            /** Dataset Id */
            dataset_id: number;
            /** N Examples */
            n_examples: number;
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
            /**
             * Example Ext Id
             * @description the example's id in its file: what every screen and the export show
             */
            example_ext_id?: string | null;
            /**
             * Example Id
             * @description database id (what the API's example routes take)
             */
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
             * Source
             * @description null: a person's click; else the import it came from (simulated:…)
             */
            source?: string | null;
            /** User */
            user: string | null;
            /** Word */
            word: string | null;
            /** Word Index */
            word_index: number | null;
        };
        /**
         * ExampleMarksOut
         * @description Everyone's marks on one example, as the reader may see them (blind mode hides the others' until done).
         */
        ExampleMarksOut: {
            /** Blind */
            blind: boolean;
            /** Done */
            done: boolean;
            /** Example Id */
            example_id: number;
            /**
             * Hidden
             * @description others' marks are hidden from this reader (blind mode, not done yet)
             */
            hidden: boolean;
            /** Items */
            items: components["schemas"]["PersonMark"][];
            /** Limit */
            limit: number;
            /**
             * Offset
             * @default 0
             */
            offset?: number;
            /** Total */
            total: number;
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
        /**
         * ExplainedOut
         * @description Examples of a dataset explained under one version and method (what the Data tab lists).
         */
        ExplainedOut: {
            /** Complete */
            complete: boolean;
            /** Method */
            method: string;
            /** N Explained */
            n_explained: number;
            /** Version */
            version: number;
            /** Version Id */
            version_id: number;
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
        /** FeedbackDatasetImportOut */
        FeedbackDatasetImportOut: {
            /** Annotators */
            annotators: string[];
            /** Events */
            events: number;
            /** Examples */
            examples: number;
            /** Queue */
            queue: string;
            /**
             * Reviews
             * @description reviewers' decisions recorded again, as their reviewers'
             * @default 0
             */
            reviews?: number;
        };
        /**
         * FeedbackLevel
         * @enum {string}
         */
        FeedbackLevel: "instance" | "task";
        /** FeedbackOut */
        FeedbackOut: {
            action: components["schemas"]["Action"];
            /**
             * Example Ext Id
             * @description the example's id in its file: what every screen and the export show
             */
            example_ext_id?: string | null;
            /**
             * Example Id
             * @description database id (what the API's example routes take)
             */
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
             * Source
             * @description null: a person's click; else the import it came from (simulated:…)
             */
            source?: string | null;
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
        /**
         * FeedbackPushIn
         * @description Push the feedback dataset beside the model ``repo_id``: into the dataset repository
         *     ``<repo_id>-feedback`` (created if missing), which the model's card then links.
         */
        FeedbackPushIn: {
            /** K */
            k?: number | null;
            /**
             * Policy
             * @description the consensus policy (default: the project's)
             */
            policy?: string | null;
            /**
             * Private
             * @default true
             */
            private?: boolean;
            /**
             * Repo Id
             * @description the model's repository; the feedback goes to the dataset repository <repo_id>-feedback
             */
            repo_id: string;
            /**
             * Token
             * @description a Hugging Face write token; never stored
             */
            token?: string | null;
        };
        /**
         * ForecastIn
         * @description What a forecast predicts: a version (default: latest ready) on eval sets, with the project's feedback.
         */
        ForecastIn: {
            /**
             * Eval Dataset Ids
             * @description default: every eval dataset
             */
            eval_dataset_ids?: number[] | null;
            /**
             * Max Examples
             * @description examples per eval set
             * @default 2000
             */
            max_examples?: number;
            /**
             * Train Dataset Ids
             * @description where instance marks and the flagged class are read (default: every training set)
             */
            train_dataset_ids?: number[] | null;
            /**
             * Version Id
             * @description the version to forecast (default: latest ready)
             */
            version_id?: number | null;
        };
        /** HealthOut */
        HealthOut: {
            /**
             * Database
             * @description slow: no answer within 0.5 s; unavailable: the database refused the check
             * @enum {string}
             */
            database: "ok" | "slow" | "unavailable";
            /**
             * Event Loop
             * @description slow: the event loop ran over 0.5 s late in the last 5 s
             * @default ok
             * @enum {string}
             */
            event_loop?: "ok" | "slow";
            /**
             * Loop Lag S
             * @description the event loop's largest lag in the last 5 s
             * @default 0
             */
            loop_lag_s?: number;
            /**
             * Status
             * @description degraded: the database is slow or unreachable, the event loop late or every request thread busy
             * @enum {string}
             */
            status: "ok" | "degraded";
            /**
             * Threads
             * @description busy: every thread of the request pool is taken
             * @default ok
             * @enum {string}
             */
            threads?: "ok" | "busy";
            /** Version */
            version: string;
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /**
         * ImportIn
         * @description One of ``feedback`` (an export file), ``rationales`` or ``words``; ``preview`` writes nothing.
         */
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
            feedback?: {
                [key: string]: unknown;
            } | null;
            /**
             * Preview
             * @description only say what the import would touch; write nothing
             * @default false
             */
            preview?: boolean;
            rationales?: components["schemas"]["RationalesIn"] | null;
            words?: components["schemas"]["WordsIn"] | null;
        };
        /** ImportOut */
        ImportOut: {
            /**
             * Dataset Rows
             * @description rows of the dataset
             */
            dataset_rows?: number | null;
            /**
             * Entries
             * @description entries the import holds (what a commit writes)
             */
            entries: number;
            /**
             * Imported
             * @description events written (0 in a preview)
             */
            imported: number;
            /**
             * Job Id
             * @description the import runs as this job (202): a rationale import of more rows than XMD_IMPORT_SYNC_ROWS; its result holds what was written
             */
            job_id?: string | null;
            /** Preview */
            preview: boolean;
            /**
             * Sample Rows
             * @description a preview of a large dataset aligns its first rows only: how many (the counts are the sample's); null when the whole dataset was read
             */
            sample_rows?: number | null;
            /** Source */
            source: string | null;
            /**
             * Summary
             * @description what a simulated import touches (the core's ImportSummary)
             */
            summary?: {
                [key: string]: unknown;
            } | null;
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
         * ItemStatus
         * @enum {string}
         */
        ItemStatus: "left" | "done" | "skipped";
        /**
         * JobKind
         * @enum {string}
         */
        JobKind: "explain" | "retrain_control" | "retrain" | "forecast" | "evaluate" | "push" | "prepare_demo" | "from_data" | "import" | "push_feedback";
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
            /**
             * Eta S
             * @description seconds left at the rates measured so far (None: unknown yet)
             */
            eta_s?: number | null;
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
            /**
             * Phase
             * @description the running phase, e.g. "measuring v1 on test_clean"
             */
            phase?: string | null;
            /** Phase Done */
            phase_done?: number | null;
            /** Phase Total */
            phase_total?: number | null;
            /**
             * Phase Unit
             * @description what phase_done counts: examples, steps, model
             */
            phase_unit?: string | null;
            /**
             * Phases
             * @description each phase: name, label, done, total, unit and seconds once finished
             */
            phases?: {
                [key: string]: unknown;
            }[] | null;
            /** Progress */
            progress: number;
            /** Project Id */
            project_id: number | null;
            /**
             * Queue Position
             * @description a queued job's place in its queue (1 = next)
             */
            queue_position?: number | null;
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
            /**
             * Waiting Behind
             * @description the job a queued one waits behind: id, kind, status, project_id, project_name
             */
            waiting_behind?: {
                [key: string]: unknown;
            } | null;
            /** Worker Host */
            worker_host: string | null;
        };
        /**
         * JobPage
         * @description A page of jobs, and what happened to ``xmd serve``'s embedded workers lately (empty elsewhere).
         */
        JobPage: {
            /** Items */
            items: components["schemas"]["JobOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
            /** Workers */
            workers?: components["schemas"]["WorkerNoticeOut"][];
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
        ModelStatus: "ready" | "training" | "failed" | "cancelled";
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
        /** Page[QueueItemOut] */
        Page_QueueItemOut_: {
            /** Items */
            items: components["schemas"]["QueueItemOut"][];
            /** Limit */
            limit: number;
            /** Offset */
            offset: number;
            /** Total */
            total: number;
        };
        /** Page[QueueOut] */
        Page_QueueOut_: {
            /** Items */
            items: components["schemas"]["QueueOut"][];
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
        /** Page[TokenInfo] */
        Page_TokenInfo_: {
            /** Items */
            items: components["schemas"]["TokenInfo"][];
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
        /** PairAgreementOut */
        PairAgreementOut: {
            /** A */
            a: string;
            /** B */
            b: string;
            /** Kappa */
            kappa: number | null;
            /** N Tokens */
            n_tokens: number;
            /** Observed */
            observed: number | null;
        };
        /**
         * PersonMark
         * @description Someone's current mark, with their name: what the example view shows beside one's own.
         */
        PersonMark: {
            action: components["schemas"]["Action"];
            /**
             * By
             * @description who: the user's name, or the name of an import
             */
            by: string;
            /** Example Id */
            example_id: number | null;
            /** Key */
            key: string;
            /** Label */
            label: number | null;
            level: components["schemas"]["FeedbackLevel"];
            /** Mine */
            mine: boolean;
            scope: components["schemas"]["Scope"] | null;
            /** Word */
            word: string | null;
            /** Word Index */
            word_index: number | null;
        };
        /** PhaseEstimate */
        PhaseEstimate: {
            /**
             * Expected S
             * @description at the rate of ``rates_from``; None: never measured
             */
            expected_s: number | null;
            /** Label */
            label: string;
            /** Name */
            name: string;
            /** Total */
            total: number;
            /** Unit */
            unit: string;
        };
        /**
         * PickOut
         * @description An example the side-by-side picker offers, with the id users see (``ext_id``) and why.
         */
        PickOut: {
            /**
             * Change
             * @description largest change of one class's probability from a to b (null: not both explained)
             */
            change: number | null;
            /** Dataset */
            dataset: string;
            /**
             * Ext Id
             * @description the example's id in its file: the id every screen shows
             */
            ext_id: string;
            /**
             * Id
             * @description database id (what ``compare?example_id=`` takes)
             */
            id: number;
            /** Label */
            label: number | null;
            /** Pred A */
            pred_a: number | null;
            /** Pred B */
            pred_b: number | null;
            /**
             * Snippet
             * @description the text's first 200 characters
             */
            snippet: string;
            /**
             * Words
             * @description task-level feedback words it contains
             */
            words?: string[];
        };
        /** PicksPage */
        PicksPage: {
            /**
             * Capped
             * @description more rows exist than were read: the total is a lower bound
             * @default false
             */
            capped?: boolean;
            /** Group */
            group: string;
            /** Items */
            items: components["schemas"]["PickOut"][];
            /** Limit */
            limit: number;
            /** Method */
            method: string;
            /**
             * Note
             * @description why the group is empty, when it is
             */
            note?: string | null;
            /** Offset */
            offset: number;
            /**
             * Scanned
             * @description rows read: candidate texts (task_words) or explanation pairs (changed)
             */
            scanned?: number | null;
            /** Total */
            total: number;
            /**
             * Words
             * @description the task-level feedback words (group task_words)
             */
            words?: string[];
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
            guess: components["schemas"]["ColumnGuess"];
            /**
             * Label Required For
             * @description uses whose datasets need a label column
             * @default [
             *       "eval"
             *     ]
             */
            label_required_for?: components["schemas"]["DatasetRole"][];
            /** N Rows */
            n_rows: number;
            /** Rows */
            rows: {
                [key: string]: unknown;
            }[];
        };
        /** ProjectCreate */
        ProjectCreate: {
            /** @description the model this one was fine-tuned from (enables the deletion_base control) */
            base_model?: components["schemas"]["BaseModelIn"] | null;
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
            /** @description the recorded base model; None: the deletion_base control cannot run */
            base_model?: components["schemas"]["BaseModelOut"] | null;
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
        /**
         * ProjectUpdate
         * @description A rename and/or a new description; fields left out stay as they are.
         */
        ProjectUpdate: {
            /** Description */
            description?: string | null;
            /** Name */
            name?: string | null;
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
         * QueueIn
         * @description Assign examples to annotators: one of ``dataset_id``, ``slice`` (a saved slice's name) or ``words``.
         */
        QueueIn: {
            /**
             * Annotators
             * @description user ids, in assignment order
             */
            annotators: number[];
            /** Dataset Id */
            dataset_id?: number | null;
            /** Name */
            name: string;
            /** @default random */
            order?: components["schemas"]["QueueOrder"];
            /**
             * Overlap
             * @description how many people see each example
             * @default 1
             */
            overlap?: number;
            /**
             * Seed
             * @default 0
             */
            seed?: number;
            /** Slice */
            slice?: string | null;
            /**
             * Words
             * @description the examples containing any of these words
             */
            words?: string[] | null;
        };
        /** QueueItemOut */
        QueueItemOut: {
            /** Example Ext Id */
            example_ext_id: string | null;
            /** Example Id */
            example_id: number;
            /** Label */
            label?: number | null;
            /** Queue Id */
            queue_id: number;
            /** Rank */
            rank: number;
            status: components["schemas"]["ItemStatus"];
            /** Text */
            text?: string | null;
            /** User Id */
            user_id: number;
        };
        /**
         * QueueNextOut
         * @description The person's next example (None when their part of the queue is through) and how far they are.
         */
        QueueNextOut: {
            /**
             * Done
             * @description with counts=true
             */
            done?: number | null;
            item: components["schemas"]["QueueItemOut"] | null;
            /** Left */
            left?: number | null;
            /** Rule */
            rule: string;
            /** Skipped */
            skipped?: number | null;
        };
        /**
         * QueueOrder
         * @description The order a queue's Next walks (see :data:`xmd.teamwork.queues.RULES` for each rule in words).
         * @enum {string}
         */
        QueueOrder: "suspicious" | "uncertain" | "disagreement" | "random";
        /** QueueOut */
        QueueOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Done */
            done: number;
            /** Id */
            id: number;
            /** Left */
            left: number;
            /** N Examples */
            n_examples: number;
            /** Name */
            name: string;
            order: components["schemas"]["QueueOrder"];
            /** Overlap */
            overlap: number;
            /**
             * Progress
             * @description per annotator: done / skipped / left
             */
            progress: components["schemas"]["QueueProgress"][];
            /** Project Id */
            project_id: number;
            /**
             * Rule
             * @description the order's rule, in words
             */
            rule: string;
            /** Seed */
            seed: number;
            /** Skipped */
            skipped: number;
            /** Source */
            source: {
                [key: string]: unknown;
            };
        };
        /** QueueProgress */
        QueueProgress: {
            /** Done */
            done: number;
            /** Left */
            left: number;
            /** Skipped */
            skipped: number;
            /** User */
            user: string;
            /** User Id */
            user_id: number;
        };
        /** QueueStatusIn */
        QueueStatusIn: {
            status: components["schemas"]["ItemStatus"];
        };
        /**
         * RationalesIn
         * @description Instance feedback simulated from a rationale column of the dataset (evaluation mode).
         */
        RationalesIn: {
            /**
             * Budget
             * @description keep this many examples, drawn with the seed
             */
            budget?: number | null;
            /**
             * Column
             * @description the column with human rationales
             */
            column: string;
            /**
             * Format
             * @description auto, binary, positions, words, spans
             * @default auto
             */
            format?: string;
            /**
             * Min Agreement
             * @description annotators needed: a count (2), or a fraction of a row's annotators (0.5)
             * @default 0.5
             */
            min_agreement?: number;
            /**
             * @description examples the current version predicts correctly / incorrectly, or all
             * @default all
             */
            only?: components["schemas"]["Scope"];
            /**
             * Remove Others
             * @description also *remove* on every other word of those examples
             * @default false
             */
            remove_others?: boolean;
            /**
             * Seed
             * @default 0
             */
            seed?: number;
            /**
             * Tokens Column
             * @description a token list the flags/positions refer to (e.g. post_tokens)
             */
            tokens_column?: string | null;
        };
        /**
         * RetrainEstimate
         * @description What a retrain will do and how long it should take, before it starts.
         */
        RetrainEstimate: {
            /**
             * Control Runs
             * @description with controls: the follow-up jobs (arm x seed) queued
             * @default 0
             */
            control_runs?: number;
            /**
             * Controls S
             * @description with controls: how much longer until every control job that follows the retrain is done (they run after the new version is ready, one after another on the retrain queue); None without controls or when a rate was never measured
             */
            controls_s?: number | null;
            /**
             * Expected S
             * @description the whole retrain; None until a retrain has measured every phase
             */
            expected_s: number | null;
            /**
             * Graphs Priced
             * @description with cuda_graphs: whether the project's calibration timed graphed training steps, which price the training here; false: priced on eager steps (a GPU's graphed retrain then takes less)
             * @default false
             */
            graphs_priced?: boolean;
            /**
             * Measured Before
             * @description whether an earlier retrain measured the rates used
             */
            measured_before: boolean;
            /** Phases */
            phases: components["schemas"]["PhaseEstimate"][];
            /**
             * Rates From
             * @description where the rates come from: an earlier retrain, or the calibration the project's first explain job ran (a few timed batches of each kind of a retrain's work); None: nothing measured yet
             */
            rates_from?: ("retrain" | "calibration") | null;
            /**
             * Until Controls S
             * @description with controls: expected_s (until the new version is ready) plus controls_s
             */
            until_controls_s?: number | null;
        };
        /**
         * RetrainIn
         * @description A retrain: what it starts from, and every field of the core's retrain settings.
         */
        RetrainIn: {
            /**
             * Attribution Every
             * @description the attribution term (second derivative) on every k-th batch only, weighted by k so its mean strength stays; the other batches take the erasure term alone (objective 'both') or no ER term (objective 'attribution'); 1 = every batch
             * @default 1
             */
            attribution_every?: number;
            /**
             * Attribution Rows
             * @description at most this many feedback rows per batch take the attribution term (its second derivative is the dearest part of a step): those that took it the fewest times so far in the run, ties drawn with a seeded generator; 0 = every feedback row; the erasure term still sees every feedback row
             * @default 0
             */
            attribution_rows?: number;
            /**
             * Attribution Weight
             * @description weight μ of the attribution term with objective 'both'
             * @default 5
             */
            attribution_weight?: number;
            /**
             * Batch Size
             * @description examples per optimiser step (before accumulation)
             * @default 32
             */
            batch_size?: number;
            /**
             * Controls
             * @description control arms trained beside the debug run (none: no comparison)
             * @default []
             */
            controls?: ("lambda0" | "deletion" | "deletion_base" | "strip")[];
            /**
             * Cuda Graphs
             * @description on a GPU, record each training step once as a CUDA graph and replay it (a small model's step waits on kernel launches, not arithmetic); batches are padded to the batch size and to 16/32/64/128… tokens. Not with gradient accumulation; the run records whether it was used
             * @default false
             */
            cuda_graphs?: boolean;
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
             * Eval Max Examples
             * @description measure each eval set on at most this many examples (a sample fixed by the seed; Results shows it)
             * @default 2000
             */
            eval_max_examples?: number;
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
             * Length Bucketing
             * @description batch texts of similar token length together (seeded pools of 50 batches sorted by length, batches shuffled), so a batch is padded only to its own longest text; every example still appears once per epoch
             * @default true
             */
            length_bucketing?: boolean;
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
             * Mixed Precision
             * @description bf16 autocast of the training steps. Unset (auto): on a CPU that computes bf16 natively (AVX512-BF16 or AMX), where retraining ran 1.2-2.3x faster with the same effect; float32 on a GPU, where small steps ran slower in bf16. true: wherever the device computes bf16 natively; false: float32. bf16 is never emulated; the run records whether it was used
             */
            mixed_precision?: boolean | null;
            /**
             * Objective
             * @description erasure consistency, the paper's attribution matching, or both (measured best)
             * @default both
             * @enum {string}
             */
            objective?: "erasure" | "attribution" | "both";
            /**
             * Quality
             * @description with controls: faithfulness (AOPC) of every arm before/after
             * @default false
             */
            quality?: boolean;
            /**
             * Rationale Column
             * @description with controls: eval-set column of human rationales for plausibility (AUPRC, token-F1)
             * @default
             */
            rationale_column?: string;
            /**
             * Seed
             * @description seed for shuffling and initialisation
             * @default 0
             */
            seed?: number;
            /**
             * Seeds
             * @description with controls: every arm runs this many seeds (3 is advised)
             * @default 1
             */
            seeds?: number;
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
         * @description What a user may do: admins manage projects and users, reviewers settle annotators' conflicts,
         *     annotators give feedback, viewers look.
         * @enum {string}
         */
        Role: "admin" | "reviewer" | "annotator" | "viewer";
        /** RoleChange */
        RoleChange: {
            role: components["schemas"]["Role"];
        };
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
        /**
         * TeamSettingsIO
         * @description How the project's consensus is drawn from its people's marks, and whether they annotate blind.
         */
        TeamSettingsIO: {
            /**
             * Blind
             * @description annotators see others' marks on an example only once done
             * @default false
             */
            blind?: boolean;
            /**
             * K
             * @description for at_least_k: the marks a word needs
             */
            k?: number | null;
            /**
             * Policy
             * @default union
             * @enum {string}
             */
            policy?: "union" | "majority" | "at_least_k" | "reviewed";
        };
        /** TokenCreate */
        TokenCreate: {
            /**
             * Expires In Days
             * @description the token stops working after this many days; none: never
             */
            expires_in_days?: number | null;
            /**
             * Name
             * @default
             */
            name?: string;
        };
        /**
         * TokenInfo
         * @description A token without its secret (only a hash of which is stored).
         */
        TokenInfo: {
            /** Active */
            active: boolean;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Expires At */
            expires_at: string | null;
            /** Id */
            id: number;
            /** Last Used At */
            last_used_at: string | null;
            /** Name */
            name: string;
            /**
             * Prefix
             * @description the first characters of the secret, to recognise it
             */
            prefix: string;
            /** Revoked At */
            revoked_at: string | null;
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
            /**
             * Expires In Days
             * @description lifetime of the first token
             */
            expires_in_days?: number | null;
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
            /** Controls */
            controls?: {
                [key: string]: unknown;
            } | null;
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
        /** WordAgreementOut */
        WordAgreementOut: {
            /** Alpha */
            alpha: number | null;
            /** Disputed */
            disputed: number;
            /** Marked */
            marked: number;
            /** N Tokens */
            n_tokens: number;
            /** Unanimous */
            unanimous: number;
            /** Word */
            word: string;
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
            coverage: components["schemas"]["Coverage"];
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
            /**
             * Votes
             * @description people whose current mark this is (a reviewer's edit may have none)
             * @default 1
             */
            votes?: number;
        };
        /** WordMark */
        WordMark: {
            /** Action */
            action: string;
            /**
             * By
             * @description whose mark: a user's name, or an import's
             */
            by?: string | null;
            /** Label */
            label?: number | null;
            /**
             * Level
             * @enum {string}
             */
            level: "instance" | "task";
            /**
             * Mine
             * @description the reader's own mark (others' are shown, not toggled)
             * @default true
             */
            mine?: boolean;
            /** Scope */
            scope?: string | null;
            /** Word Index */
            word_index: number;
        };
        /**
         * WordMarks
         * @description Whose task feedback the words' ``feedback`` is: a team's consensus, or in blind mode one's own.
         */
        WordMarks: {
            /** K */
            k?: number | null;
            /**
             * People
             * @description people with feedback: the majority's denominator
             */
            people?: number | null;
            /** Policy */
            policy: string;
            /**
             * Shown
             * @description consensus: the project's by its policy (what a retrain trains on); own: blind mode, the reader's marks only (the others' and their counts are hidden)
             * @enum {string}
             */
            shown: "consensus" | "own";
        };
        /**
         * WordOut
         * @description A ranked word: the core's WordStats field for field, its suspicious flag, and the task feedback on it.
         */
        WordOut: {
            /** Count */
            count: number;
            /**
             * Feedback
             * @description the task feedback on the word as the page's `marks.shown` says: consensus or own
             */
            feedback: components["schemas"]["WordFeedback"][];
            /** Label Counts */
            label_counts: number[];
            /** Lean */
            lean: number;
            /** Mean Importance */
            mean_importance: number;
            /** Mean Signed */
            mean_signed: number;
            /**
             * Mine
             * @description the reader's own task feedback on the word (what a reset clears)
             */
            mine?: components["schemas"]["WordFeedback"][];
            /** P Value */
            p_value: number;
            /** Q Value */
            q_value: number;
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
             * @description the core's rule (xmd.core.suspicion.is_suspicious), not the client's
             */
            suspicious: boolean;
            votes?: components["schemas"]["WordVotes"];
            /** Word */
            word: string;
        };
        /** WordPage */
        WordPage: {
            coverage: components["schemas"]["Coverage"];
            /** Items */
            items: components["schemas"]["WordOut"][];
            /** Limit */
            limit: number;
            /** @description Whose task feedback the words' ``feedback`` is: a team's consensus, or in blind mode one's own. */
            marks?: components["schemas"]["WordMarks"] | null;
            /** Method */
            method: string;
            /**
             * Min Count Default
             * @description the minimum count a screen starts from, chosen from the label shares: the smallest count at which a word could pass the skew test at all (xmd.core.suspicion.default_min_count)
             * @default 2
             */
            min_count_default?: number;
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
        /**
         * WordsIn
         * @description Task feedback simulated from an uploaded word list (one word a line, optional weight).
         */
        WordsIn: {
            /**
             * Action
             * @default remove
             * @enum {string}
             */
            action?: "add" | "remove";
            /**
             * Label
             * @description only examples of this gold label
             */
            label?: number | null;
            /**
             * Name
             * @description its file name (the source tag)
             * @default list
             */
            name?: string;
            /** @default all */
            scope?: components["schemas"]["Scope"];
            /**
             * Text
             * @description the word list file's content
             */
            text: string;
        };
        /**
         * WordVotes
         * @description People per action on a word (any label or scope), among the marks the reader may see.
         */
        WordVotes: {
            /**
             * Add
             * @default 0
             */
            add?: number;
            /**
             * Remove
             * @default 0
             */
            remove?: number;
        };
        /**
         * WorkerNoticeOut
         * @description An embedded worker of ``xmd serve`` that died, and whether the supervisor has restarted it.
         */
        WorkerNoticeOut: {
            /**
             * Died At
             * Format: date-time
             */
            died_at: string;
            /**
             * Exit Code
             * @description the dead worker's exit status (-9: killed by SIGKILL)
             */
            exit_code: number | null;
            /**
             * Message
             * @description the notice in words (UTC times)
             */
            message: string;
            /** Queue */
            queue: string;
            /**
             * Restart In S
             * @description the back-off before the restart, when it died
             */
            restart_in_s: number | null;
            /**
             * Restarted At
             * @description None while the restart is still due
             */
            restarted_at: string | null;
            /**
             * Restarts
             * @description restarts of this worker since the server started
             */
            restarts: number;
            /**
             * Role
             * @description what the worker runs: "retrain" or the other kinds in words
             */
            role: string;
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
                /** @description a row id */
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
    rename_dataset_api_datasets__dataset_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                dataset_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DatasetRename"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
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
    list_examples_api_datasets__dataset_id__examples_get: {
        parameters: {
            query?: {
                correctness?: "correct" | "incorrect" | "all";
                has_feedback?: boolean | null;
                /** @description a class index */
                label?: number | null;
                limit?: number;
                method?: string | null;
                /** @description items to skip */
                offset?: number;
                /** @description case-insensitive regular expression */
                regex?: string | null;
                /** @description case-insensitive substring */
                search?: string | null;
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
    mark_done_api_examples__example_id__done_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["DoneOut"];
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
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                /** @description a row id */
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
    example_marks_api_examples__example_id__marks_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["ExampleMarksOut"];
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
                    "application/json": components["schemas"]["HealthOut"];
                };
            };
        };
    };
    hub_health_api_health_hub_get: {
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
    list_all_jobs_api_jobs_get: {
        parameters: {
            query?: {
                kind?: components["schemas"]["JobKind"] | null;
                limit?: number;
                /** @description items to skip */
                offset?: number;
                /** @description a row id */
                project_id?: number | null;
                status?: components["schemas"]["JobStatus"] | null;
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
                    "application/json": components["schemas"]["JobPage"];
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
    get_job_api_jobs__job_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a job id (a UUID) */
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
                /** @description a job id (a UUID) */
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
                /** @description a job id (a UUID) */
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
                /** @description the last id seen (0: from the start) */
                after?: number | null;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description a job id (a UUID) */
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
                /** @description a row id */
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
                /** @description a row id */
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
    update_project_api_projects__project_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectUpdate"];
            };
        };
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
    get_agreement_api_projects__project_id__agreement_get: {
        parameters: {
            query?: {
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["AgreementOut"];
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
    set_base_model_api_projects__project_id__base_model_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BaseModelIn"];
            };
        };
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
    forget_base_model_api_projects__project_id__base_model_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
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
    compare_api_projects__project_id__compare_get: {
        parameters: {
            query: {
                /** @description a row id */
                a: number;
                /** @description a row id */
                b: number;
                /** @description a row id */
                example_id?: number | null;
                method?: string | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
    compare_examples_api_projects__project_id__compare_examples_get: {
        parameters: {
            query: {
                /** @description a row id */
                a: number;
                /** @description a row id */
                b: number;
                group?: "feedback" | "task_words" | "changed";
                limit?: number;
                method?: string | null;
                offset?: number;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["PicksPage"];
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
    list_conflicts_api_projects__project_id__conflicts_get: {
        parameters: {
            query?: {
                include_decided?: boolean;
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["ConflictPage"];
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
    decide_conflict_api_projects__project_id__conflicts_decide_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecideIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecideOut"];
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
    get_consensus_api_projects__project_id__consensus_get: {
        parameters: {
            query?: {
                /** @description a row id */
                dataset_id?: number | null;
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["ConsensusOut"];
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
    coverage_api_projects__project_id__coverage_get: {
        parameters: {
            query?: {
                method?: string | null;
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["Coverage"];
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
                /** @description a row id */
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
                /** @description a row id */
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
                /** @description a row id */
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
    find_example_api_projects__project_id__examples_find_get: {
        parameters: {
            query: {
                /** @description a row id */
                dataset_id?: number | null;
                /** @description the id shown (train-7) */
                ext_id: string;
                method?: string | null;
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
    list_feedback_api_projects__project_id__feedback_get: {
        parameters: {
            query?: {
                /** @description a row id */
                example_id?: number | null;
                level?: components["schemas"]["FeedbackLevel"] | null;
                limit?: number;
                /** @description items to skip */
                offset?: number;
                word?: string | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
    export_dataset_api_projects__project_id__feedback_dataset_get: {
        parameters: {
            query?: {
                k?: number | null;
                policy?: string | null;
            };
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the saved dataset, as a .tar.gz */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/gzip": unknown;
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
    import_dataset_api_projects__project_id__feedback_dataset_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_import_dataset_api_projects__project_id__feedback_dataset_post"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FeedbackDatasetImportOut"];
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
                /** @description the last id seen (0: from the start) */
                after_id?: number | null;
                /** @description the last id seen (0: from the start) */
                before_id?: number | null;
                /** @description one key's history */
                key?: string | null;
                limit?: number;
                order?: "asc" | "desc";
            };
            header?: never;
            path: {
                /** @description a row id */
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
                /** @description a row id */
                dataset_id?: number | null;
                mine?: boolean;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                /** @description a row id */
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
                    "application/json": components["schemas"]["ImportOut"];
                };
            };
            /** @description a large rationale import started as a job (job_id) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportOut"];
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
                /** @description a row id */
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
                    "application/json": components["schemas"]["JobPage"];
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
                /** @description a row id */
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
                /** @description a row id */
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
    start_forecast_api_projects__project_id__jobs_forecast_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForecastIn"];
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
                /** @description a row id */
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
    push_feedback_api_projects__project_id__jobs_push_feedback_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FeedbackPushIn"];
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
                /** @description a row id */
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
    estimate_retrain_api_projects__project_id__jobs_retrain_estimate_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RetrainEstimate"];
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
                /** @description a row id */
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
    list_queues_api_projects__project_id__queues_get: {
        parameters: {
            query?: {
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["Page_QueueOut_"];
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
    create_queue_api_projects__project_id__queues_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QueueIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueOut"];
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
                /** @description a row id */
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
                /** @description a row id */
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
                /** @description a row id */
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
                /** @description a row id */
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
    get_team_settings_api_projects__project_id__team_settings_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
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
                    "application/json": components["schemas"]["TeamSettingsIO"];
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
    put_team_settings_api_projects__project_id__team_settings_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                project_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamSettingsIO"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamSettingsIO"];
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
                /** @description a row id */
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
                /** @description a class index */
                label?: number | null;
                limit?: number;
                method?: string | null;
                min_count?: number;
                /** @description items to skip */
                offset?: number;
                search?: string | null;
                sort?: "importance" | "count" | "suspicion";
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
                /** @description a class index */
                label?: number | null;
                limit?: number;
                method?: string | null;
                /** @description items to skip */
                offset?: number;
                /** @description a row id */
                version_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
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
    create_project_from_data_api_projects_from_data_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_create_project_from_data_api_projects_from_data_post"];
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
    preview_training_data_api_projects_from_data_preview_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_preview_training_data_api_projects_from_data_preview_post"];
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
    get_queue_api_queues__queue_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                queue_id: number;
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
                    "application/json": components["schemas"]["QueueOut"];
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
    delete_queue_api_queues__queue_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                queue_id: number;
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
    list_items_api_queues__queue_id__items_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
                status?: components["schemas"]["ItemStatus"] | null;
                /** @description a row id */
                user_id?: number | null;
            };
            header?: never;
            path: {
                /** @description a row id */
                queue_id: number;
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
                    "application/json": components["schemas"]["Page_QueueItemOut_"];
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
    set_item_status_api_queues__queue_id__items__example_id__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                example_id: number;
                /** @description a row id */
                queue_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QueueStatusIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QueueItemOut"];
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
    next_example_api_queues__queue_id__next_get: {
        parameters: {
            query?: {
                counts?: boolean;
            };
            header?: never;
            path: {
                /** @description a row id */
                queue_id: number;
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
                    "application/json": components["schemas"]["QueueNextOut"];
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
    delete_user_api_users__user_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                user_id: number;
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
    change_role_api_users__user_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                user_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RoleChange"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserOut"];
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
    list_tokens_api_users__user_id__tokens_get: {
        parameters: {
            query?: {
                /** @description items to return at most */
                limit?: number;
                /** @description items to skip */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description a row id */
                user_id: number;
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
                    "application/json": components["schemas"]["Page_TokenInfo_"];
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
                /** @description a row id */
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
    revoke_token_api_users__user_id__tokens__token_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
                token_id: number;
                /** @description a row id */
                user_id: number;
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
    get_version_api_versions__version_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row id */
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
                /** @description a row id */
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
