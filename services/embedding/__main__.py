from services.embedding.embedding_servicer import main

main()
