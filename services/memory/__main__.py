from services.memory.composition import main

main()
