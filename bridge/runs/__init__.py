"""Layer 4 of the runner, runs: many scenarios checked (the corpus, its
transcripts made again) and generated ones searched (fuzz), with their
progress and their worker processes (docs/developing.md, "How the code is laid out")."""
