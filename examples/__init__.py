"""The bundled example configuration, importable as ``corescheduler_examples``.

``corescheduler simulate`` with no ``--config`` runs ``corescheduler.toml``
from here (with ``allocations.xml`` beside it)::

    from importlib.resources import files
    files("corescheduler_examples") / "corescheduler.toml"
"""
