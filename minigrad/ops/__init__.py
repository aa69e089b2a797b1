"""All built-in ops; importing this package registers them with the dispatcher."""
from . import factory, cast, elementwise, reduce, shape  # noqa: F401
