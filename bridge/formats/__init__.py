"""Layer 1 of the runner, data and formats: engine profiles, transcripts, where
scenario files and their transcripts lie, the bundled kit, and what a user
names on the command line read (docs/developing.md, "How the code is laid out")."""
