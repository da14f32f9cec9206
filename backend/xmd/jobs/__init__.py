"""Jobs: the rows that long work (explain, retrain, evaluate, push) reports through."""
