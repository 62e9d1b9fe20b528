"""Files in and out of a group's history, a module per format."""
