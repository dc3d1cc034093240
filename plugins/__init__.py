"""corescheduler's built-in plugins, importable as ``corescheduler_plugins``.

Each is registered under ``[project.entry-points.corescheduler]`` in
``pyproject.toml`` exactly as a third-party plugin would be, and the core
never imports this package: it finds these plugins through their entry
points like any other.
"""
