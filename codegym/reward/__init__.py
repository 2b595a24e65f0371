"""codegym.reward"""
