"""The application layer: command line, spec files, JSON serialization, the demo, plots."""
