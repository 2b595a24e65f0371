"""codegym.rollout"""
