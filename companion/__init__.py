"""Game-Night Companion: scores and table state for Mayflower, Great Western Trail and Gold West."""
