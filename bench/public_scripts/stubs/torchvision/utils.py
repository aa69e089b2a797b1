def save_image(*a, **k):
    pass
