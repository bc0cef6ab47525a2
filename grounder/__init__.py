"""grounder package."""
