"""Built-in bots and the SDK bot authors use.

``bots.api`` is the one interface every built-in bot implements; ``bots.registry`` maps a
bot's name to its factory (adding a bot is a module plus one registry line); ``bots.sdk``
is what an uploaded or remote bot imports. Built-in bots depend on ``games`` only.
"""
