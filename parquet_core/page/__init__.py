"""L4 pages: headers, CRC, decompression; bodies handed up as plaintext bytes."""
