from services.embedding.server import main

main()
