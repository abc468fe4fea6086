from services.memory.server import main

main()
