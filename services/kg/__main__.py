from services.kg.kg_servicer import main

main()
