"""Layer 5 of the runner, outputs: each a leaf that writes what the layers
below found, as JUnit XML, JSON, an HTML page or an SVG picture, or as a
regression scenario with its transcript (docs/developing.md, "How the code is laid out")."""
