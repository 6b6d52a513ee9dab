"""The phone page's pages, a module each: a class holding the page's routes and their handlers."""
