"""codegym.train"""
