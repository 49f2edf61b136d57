"""The page's files (HTML, CSS, ES modules), shipped inside the package as data."""
