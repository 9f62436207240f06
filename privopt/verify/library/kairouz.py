def claims():
    return []
