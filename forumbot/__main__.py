from forumbot.cli import main

main()
