"""The site's blueprints: thin views that parse input, call the rules and the store, then render."""
