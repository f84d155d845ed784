"""The private areas behind acl.tdt (channels and queues)."""
