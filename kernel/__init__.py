"""The shared kernel every mnemex process imports: settings, the gRPC service
scaffold, offline switches, privacy redaction, project ids and display helpers.

It imports nothing from the application shell (``mnemex``: CLI, supervisor,
client setup) nor from any service, so services and the gateway can depend on
it without loops.
"""

__version__ = "0.1.0"
