"""The compiler: ratio pairs and row cones, the form every privacy definition compiles to."""
