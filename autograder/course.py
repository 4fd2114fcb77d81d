"""The course's fixed structure (../shared/COURSE.md sections 1 and 3): assignments and their graded units."""

GRADED_UNITS = {
    "01-attention": ["scaled_dot_product_attention"],
    "02-multi-head": ["split_heads", "merge_heads", "MultiHeadAttention"],
    "03-add-norm": ["LayerNorm", "AddNorm"],
    "04-feed-forward": ["PositionwiseFeedForward"],
    "05-encoder": ["Embeddings", "PositionalEncoding", "EncoderLayer", "Encoder"],
    "06-masks": ["make_pad_mask", "make_subsequent_mask", "make_tgt_mask"],
    "07-decoder": ["DecoderLayer", "Decoder"],
    "08-generator": ["Generator", "Transformer"],
    "09-additive-attention": ["AdditiveAttention", "AdditiveMultiHeadAttention"],
    "10-train": ["make_batch", "LabelSmoothingLoss", "noam_rate", "greedy_decode"],
}

ALL_UNITS = [unit for units in GRADED_UNITS.values() for unit in units]
