"""`MODEL_ID=embedded`: a tiny GGUF model run in-process by llama.cpp, with grammar-made calls."""
