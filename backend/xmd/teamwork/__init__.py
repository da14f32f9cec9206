"""Team annotation (issue 32 §2, §3, §6): work queues, incremental agreement, feedback as a dataset."""
