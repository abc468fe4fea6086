from mnemex.cli import main

main()
