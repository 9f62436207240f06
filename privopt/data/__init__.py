"""The data layer: distributions, mechanisms, linear statistics of a column, information measures."""
