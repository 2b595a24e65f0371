"""codegym.eval"""
