"""mnemex's application shell: the CLI, the supervisor that runs the stack, and
client setup. The services and the gateway never import it; the shared kernel
they all use is the ``kernel`` package."""
