from services.kg.server import main

main()
