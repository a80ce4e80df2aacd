"""d2l.ai's attention chapter runs unchanged with `from attention_helpers import d2l` (issue 16).

The code between the `# d2l-en:` markers is copied unchanged from the PyTorch cells (`%%tab pytorch` / `%%tab all`)
of d2l-en (github.com/d2l-ai/d2l-en, "Dive into Deep Learning", v1.x), chapter_attention-mechanisms-and-transformers:
attention-scoring-functions, multihead-attention, self-attention-and-positional-encoding, the attention call of
bahdanau-attention's decoder, and the shape checks of transformer's encoder and decoder blocks. d2l-en's sample
code is licensed MIT-0 (its LICENSE-SAMPLECODE); the credit is given here all the same.

Left out: the cells that define d2l's own versions of our pieces (`masked_softmax`, `DotProductAttention`,
`AdditiveAttention`, `MultiHeadAttention` and its `transpose_*` methods, `PositionalEncoding`): the test binds
those names to `d2l.`'s instead, as the chapter's later sections do; and what needs d2l's training infrastructure
(`d2l.Module`, `Trainer`, data sets). The four pieces of that infrastructure the Bahdanau and Transformer cells
name (`d2l.Encoder`, `d2l.Decoder`, `d2l.Seq2SeqEncoder`, `d2l.init_seq2seq`) are small stand-ins set for one test
by `monkeypatch`. A cell whose last line Jupyter would display (`masked_softmax(...)`, `ffn(...)[0]`) has that
value named, to check it. After each section, the test checks what the chapter's text says its cells show.
"""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import attention_helpers  # noqa: E402
from attention_helpers import d2l  # noqa: E402


@pytest.fixture(autouse=True)
def _seed_and_close():
    torch.manual_seed(0)
    yield
    plt.close("all")


def test_the_porting_module_is_not_the_package_api():
    assert "d2l" not in attention_helpers.__all__ and "check_shape" not in attention_helpers.__all__
    assert not hasattr(attention_helpers, "plot") and not hasattr(attention_helpers, "ones")
    for name in d2l.__all__:
        assert hasattr(d2l, name), name
    assert d2l.MultiHeadAttention is attention_helpers.MultiHeadAttention  # one implementation, two doors
    assert d2l.PositionalEncoding is attention_helpers.PositionalEncoding


# ---------------------------------------------------------------- attention-scoring-functions


def test_attention_scoring_functions():
    masked_softmax, DotProductAttention = d2l.masked_softmax, d2l.DotProductAttention
    AdditiveAttention = d2l.AdditiveAttention
    # fmt: off
    # d2l-en: masked softmax
    first = masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
    second = masked_softmax(torch.rand(2, 2, 4), d2l.tensor([[1, 3], [2, 4]]))
    # d2l-en: batch matrix multiplication
    Q = d2l.ones((2, 3, 4))
    K = d2l.ones((2, 4, 6))
    d2l.check_shape(torch.bmm(Q, K), (2, 3, 6))
    # d2l-en: scaled dot product attention
    queries = d2l.normal(0, 1, (2, 1, 2))
    keys = d2l.normal(0, 1, (2, 10, 2))
    values = d2l.normal(0, 1, (2, 10, 4))
    valid_lens = d2l.tensor([2, 6])

    attention = DotProductAttention(dropout=0.5)
    attention.eval()
    d2l.check_shape(attention(queries, keys, values, valid_lens), (2, 1, 4))
    d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')
    # fmt: on
    # end d2l-en
    # "values beyond the valid lengths for each pair of vectors are all masked as zero"
    assert (first[0, :, 2:] == 0).all() and (first[1, :, 3:] == 0).all() and (first[..., :2] > 0).all()
    assert (second[0, 0, 1:] == 0).all() and (second[0, 1, 3:] == 0).all() and (second[1, 0, 2:] == 0).all()
    assert (second[1, 1] > 0).all()
    torch.testing.assert_close(first.sum(-1), torch.ones(2, 2))
    # "the attention weights actually vanish for anything beyond the second and sixth column respectively"
    dot_weights = attention.attention_weights
    assert (dot_weights[0, :, 2:] == 0).all() and (dot_weights[1, :, 6:] == 0).all()
    assert (dot_weights[0, :, :2] > 0).all() and (dot_weights[1, :, :6] > 0).all()
    scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(2)  # the chapter's formula
    keep = torch.arange(10) < valid_lens[:, None, None]
    expected = torch.softmax(scores.masked_fill(~keep, -1e6), dim=-1)
    torch.testing.assert_close(dot_weights, expected)
    torch.testing.assert_close(attention(queries, keys, values, valid_lens), torch.bmm(expected, values))

    # fmt: off
    # d2l-en: additive attention
    queries = d2l.normal(0, 1, (2, 1, 20))

    attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    d2l.check_shape(attention(queries, keys, values, valid_lens), (2, 1, 4))
    d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')
    # fmt: on
    # end d2l-en
    # "only terms within the chosen valid length (2, 6) are nonzero"; sizes read at the first call (LazyLinear)
    weights = attention.attention_weights
    assert (weights[0, :, 2:] == 0).all() and (weights[1, :, 6:] == 0).all() and (weights[0, :, :2] > 0).all()
    assert (attention.query_size, attention.key_size) == (20, 2)
    assert attention.W_q.weight.shape == (8, 20) and attention.W_k.weight.shape == (8, 2)


# ---------------------------------------------------------------- multihead-attention


def test_multihead_attention():
    MultiHeadAttention = d2l.MultiHeadAttention
    # fmt: off
    # d2l-en:
    num_hiddens, num_heads = 100, 5
    attention = MultiHeadAttention(num_hiddens, num_heads, 0.5)
    batch_size, num_queries, num_kvpairs = 2, 4, 6
    valid_lens = d2l.tensor([3, 2])
    X = d2l.ones((batch_size, num_queries, num_hiddens))
    Y = d2l.ones((batch_size, num_kvpairs, num_hiddens))
    d2l.check_shape(attention(X, Y, Y, valid_lens),
                    (batch_size, num_queries, num_hiddens))
    # fmt: on
    # end d2l-en
    weights = attention.attention.attention_weights  # where d2l-en's Transformer reads them
    assert weights.shape == (batch_size * num_heads, num_queries, num_kvpairs)
    assert (weights[:num_heads, :, 3:] == 0).all() and (weights[num_heads:, :, 2:] == 0).all()
    assert attention.sizes == (100, 100, 100) and attention.W_o.bias is None
    # The chapter's transposition methods, on the same object, undo each other and equal the free functions.
    Z = torch.randn(batch_size, num_queries, num_hiddens)
    heads = attention.transpose_qkv(Z)
    assert heads.shape == (batch_size * num_heads, num_queries, num_hiddens // num_heads)
    assert torch.equal(heads, attention_helpers.transpose_qkv(Z, num_heads))
    assert torch.equal(attention.transpose_output(heads), Z)


def test_add_to_class_attaches_methods_as_the_chapter_does():
    class Toy:
        num_heads = 2

    @d2l.add_to_class(Toy)
    def halves(self, X):
        return X.reshape(X.shape[0], self.num_heads, -1)

    assert Toy().halves(torch.ones(3, 4)).shape == (3, 2, 2)
    with pytest.raises(TypeError, match="Class must be a class"):
        d2l.add_to_class("Toy")


# ---------------------------------------------------------------- self-attention-and-positional-encoding


def test_self_attention_and_positional_encoding(capsys):
    PositionalEncoding = d2l.PositionalEncoding
    # fmt: off
    # d2l-en: self-attention
    num_hiddens, num_heads = 100, 5
    attention = d2l.MultiHeadAttention(num_hiddens, num_heads, 0.5)
    batch_size, num_queries, valid_lens = 2, 4, d2l.tensor([3, 2])
    X = d2l.ones((batch_size, num_queries, num_hiddens))
    d2l.check_shape(attention(X, X, X, valid_lens),
                    (batch_size, num_queries, num_hiddens))
    # d2l-en: positional encoding
    encoding_dim, num_steps = 32, 60
    pos_encoding = PositionalEncoding(encoding_dim, 0)
    X = pos_encoding(d2l.zeros((1, num_steps, encoding_dim)))
    P = pos_encoding.P[:, :X.shape[1], :]
    d2l.plot(d2l.arange(num_steps), P[0, :, 6:10].T, xlabel='Row (position)',
             figsize=(6, 2.5), legend=["Col %d" % d for d in d2l.arange(6, 10)])  # noqa: UP031
    # d2l-en: absolute positional information
    for i in range(8):
        print(f'{i} in binary is {i:>03b}')
    P = P[0, :, :].unsqueeze(0).unsqueeze(0)
    d2l.show_heatmaps(P, xlabel='Column (encoding dimension)',
                      ylabel='Row (position)', figsize=(3.5, 4), cmap='Blues')
    # fmt: on
    # end d2l-en
    assert pos_encoding.P.shape == (1, 1000, 32)
    torch.testing.assert_close(X, P[0])  # zeros in, the encoding out
    # .P equals the chapter's own recipe (float32 throughout)
    angles = d2l.arange(1000, dtype=torch.float32).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, 32, 2, dtype=torch.float32) / 32
    )
    recipe = torch.zeros(1, 1000, 32)
    recipe[:, :, 0::2], recipe[:, :, 1::2] = torch.sin(angles), torch.cos(angles)
    torch.testing.assert_close(pos_encoding.P, recipe, atol=1e-4, rtol=0)
    # "the 6th and the 7th columns ... have a higher frequency than the 8th and the 9th columns"
    crossings = [int((torch.diff(torch.sign(P[0, 0, :, c])) != 0).sum()) for c in range(6, 10)]
    assert crossings[0] > crossings[2] and crossings[1] > crossings[3]
    plot_axes = plt.figure(1).axes[0]
    assert [t.get_text() for t in plot_axes.get_legend().get_texts()] == ["Col 6", "Col 7", "Col 8", "Col 9"]
    assert len(plot_axes.lines) == 4 and plot_axes.get_xlabel() == "Row (position)"
    assert plt.figure(1).get_size_inches().tolist() == [6.0, 2.5]
    assert capsys.readouterr().out.splitlines()[5] == "5 in binary is 101"
    # the heatmap's scale is the encoding's [-1, 1]: its negative half is drawn, not clipped to 0
    heatmap = plt.figure(2).axes[0].images[0]
    assert heatmap.get_clim()[0] < -0.99 and heatmap.get_clim()[1] == pytest.approx(1.0)
    assert heatmap.get_cmap().name == "Blues"


# ---------------------------------------------------------------- bahdanau-attention: the decoder's attention call


def _stand_ins(monkeypatch):
    """d2l's training infrastructure that the Bahdanau and Transformer cells name: minimal stand-ins."""

    class Encoder(nn.Module):
        """The base encoder interface (d2l.Encoder)."""

    class Decoder(nn.Module):
        """The base decoder interface (d2l.Decoder)."""

    class Seq2SeqEncoder(Encoder):
        """An embedding and a GRU: outputs (num_steps, B, h), state (num_layers, B, h), as d2l's."""

        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

        def forward(self, X, *args):
            return self.rnn(self.embedding(X.t().long()))  # (num_steps, B, embed) -> outputs, state

    def init_seq2seq(module):
        """Xavier-uniform weights for linear and GRU layers whose sizes are known."""
        if type(module) is nn.Linear:
            nn.init.xavier_uniform_(module.weight)
        if type(module) is nn.GRU:
            for name, parameter in module.named_parameters():
                if "weight" in name:
                    nn.init.xavier_uniform_(parameter)

    for name, value in [
        ("Encoder", Encoder),
        ("Decoder", Decoder),
        ("Seq2SeqEncoder", Seq2SeqEncoder),
        ("init_seq2seq", init_seq2seq),
    ]:
        monkeypatch.setattr(d2l, name, value, raising=False)


def test_bahdanau_decoder_attention_call(monkeypatch):
    _stand_ins(monkeypatch)

    # fmt: off
    # d2l-en:
    #@save
    class AttentionDecoder(d2l.Decoder):
        """The base attention-based decoder interface."""
        def __init__(self):
            super().__init__()

        @property
        def attention_weights(self):
            raise NotImplementedError

    class Seq2SeqAttentionDecoder(AttentionDecoder):
        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers,
                     dropout=0):
            super().__init__()
            self.attention = d2l.AdditiveAttention(num_hiddens, dropout)
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = nn.GRU(
                embed_size + num_hiddens, num_hiddens, num_layers,
                dropout=dropout)
            self.dense = nn.LazyLinear(vocab_size)
            self.apply(d2l.init_seq2seq)

        def init_state(self, enc_outputs, enc_valid_lens):
            # Shape of outputs: (num_steps, batch_size, num_hiddens).
            # Shape of hidden_state: (num_layers, batch_size, num_hiddens)
            outputs, hidden_state = enc_outputs
            return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

        def forward(self, X, state):
            # Shape of enc_outputs: (batch_size, num_steps, num_hiddens).
            # Shape of hidden_state: (num_layers, batch_size, num_hiddens)
            enc_outputs, hidden_state, enc_valid_lens = state
            # Shape of the output X: (num_steps, batch_size, embed_size)
            X = self.embedding(X).permute(1, 0, 2)
            outputs, self._attention_weights = [], []
            for x in X:
                # Shape of query: (batch_size, 1, num_hiddens)
                query = torch.unsqueeze(hidden_state[-1], dim=1)
                # Shape of context: (batch_size, 1, num_hiddens)
                context = self.attention(
                    query, enc_outputs, enc_outputs, enc_valid_lens)
                # Concatenate on the feature dimension
                x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
                # Reshape x as (1, batch_size, embed_size + num_hiddens)
                out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
                outputs.append(out)
                self._attention_weights.append(self.attention.attention_weights)
            # After fully connected layer transformation, shape of outputs:
            # (num_steps, batch_size, vocab_size)
            outputs = self.dense(torch.cat(outputs, dim=0))
            return outputs.permute(1, 0, 2), [enc_outputs, hidden_state,
                                              enc_valid_lens]

        @property
        def attention_weights(self):
            return self._attention_weights

    vocab_size, embed_size, num_hiddens, num_layers = 10, 8, 16, 2
    batch_size, num_steps = 4, 7
    encoder = d2l.Seq2SeqEncoder(vocab_size, embed_size, num_hiddens, num_layers)
    decoder = Seq2SeqAttentionDecoder(vocab_size, embed_size, num_hiddens,
                                      num_layers)
    X = d2l.zeros((batch_size, num_steps), dtype=torch.long)
    state = decoder.init_state(encoder(X), None)
    output, state = decoder(X, state)
    d2l.check_shape(output, (batch_size, num_steps, vocab_size))
    d2l.check_shape(state[0], (batch_size, num_steps, num_hiddens))
    d2l.check_shape(state[1][0], (batch_size, num_hiddens))
    # fmt: on
    # end d2l-en
    weights = decoder.attention_weights
    assert len(weights) == num_steps and all(w.shape == (batch_size, 1, num_steps) for w in weights)
    torch.testing.assert_close(torch.stack(weights).sum(-1), torch.ones(num_steps, batch_size, 1))
    # with the encoder's valid lengths, the decoder never attends to padding
    lens = d2l.tensor([3, 7, 1, 5])
    decoder(X, decoder.init_state(encoder(X), lens))
    for w in decoder.attention_weights:
        assert all((w[b, 0, n:] == 0).all() and (w[b, 0, :n] > 0).all() for b, n in enumerate(lens.tolist()))


# ---------------------------------------------------------------- transformer: encoder and decoder blocks


def test_transformer_blocks_keep_their_input_shape(monkeypatch):
    _stand_ins(monkeypatch)

    # fmt: off
    # d2l-en:
    class PositionWiseFFN(nn.Module):  #@save
        """The positionwise feed-forward network."""
        def __init__(self, ffn_num_hiddens, ffn_num_outputs):
            super().__init__()
            self.dense1 = nn.LazyLinear(ffn_num_hiddens)
            self.relu = nn.ReLU()
            self.dense2 = nn.LazyLinear(ffn_num_outputs)

        def forward(self, X):
            return self.dense2(self.relu(self.dense1(X)))

    ffn = PositionWiseFFN(4, 8)
    ffn.eval()
    row = ffn(d2l.ones((2, 3, 4)))[0]

    class AddNorm(nn.Module):  #@save
        """The residual connection followed by layer normalization."""
        def __init__(self, norm_shape, dropout):
            super().__init__()
            self.dropout = nn.Dropout(dropout)
            self.ln = nn.LayerNorm(norm_shape)

        def forward(self, X, Y):
            return self.ln(self.dropout(Y) + X)

    add_norm = AddNorm(4, 0.5)
    shape = (2, 3, 4)
    d2l.check_shape(add_norm(d2l.ones(shape), d2l.ones(shape)), shape)

    class TransformerEncoderBlock(nn.Module):  #@save
        """The Transformer encoder block."""
        def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout,
                     use_bias=False):
            super().__init__()
            self.attention = d2l.MultiHeadAttention(num_hiddens, num_heads,
                                                    dropout, use_bias)
            self.addnorm1 = AddNorm(num_hiddens, dropout)
            self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
            self.addnorm2 = AddNorm(num_hiddens, dropout)

        def forward(self, X, valid_lens):
            Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
            return self.addnorm2(Y, self.ffn(Y))

    X = d2l.ones((2, 100, 24))
    valid_lens = d2l.tensor([3, 2])
    encoder_blk = TransformerEncoderBlock(24, 48, 8, 0.5)
    encoder_blk.eval()
    d2l.check_shape(encoder_blk(X, valid_lens), X.shape)

    class TransformerEncoder(d2l.Encoder):  #@save
        """The Transformer encoder."""
        def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens,
                     num_heads, num_blks, dropout, use_bias=False):
            super().__init__()
            self.num_hiddens = num_hiddens
            self.embedding = nn.Embedding(vocab_size, num_hiddens)
            self.pos_encoding = d2l.PositionalEncoding(num_hiddens, dropout)
            self.blks = nn.Sequential()
            for i in range(num_blks):
                self.blks.add_module("block"+str(i), TransformerEncoderBlock(
                    num_hiddens, ffn_num_hiddens, num_heads, dropout, use_bias))

        def forward(self, X, valid_lens):
            # Since positional encoding values are between -1 and 1, the embedding
            # values are multiplied by the square root of the embedding dimension
            # to rescale before they are summed up
            X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
            self.attention_weights = [None] * len(self.blks)
            for i, blk in enumerate(self.blks):
                X = blk(X, valid_lens)
                self.attention_weights[
                    i] = blk.attention.attention.attention_weights
            return X

    encoder = TransformerEncoder(200, 24, 48, 8, 2, 0.5)
    d2l.check_shape(encoder(d2l.ones((2, 100), dtype=torch.long), valid_lens),
                    (2, 100, 24))

    class TransformerDecoderBlock(nn.Module):
        # The i-th block in the Transformer decoder
        def __init__(self, num_hiddens, ffn_num_hiddens, num_heads, dropout, i):
            super().__init__()
            self.i = i
            self.attention1 = d2l.MultiHeadAttention(num_hiddens, num_heads,
                                                     dropout)
            self.addnorm1 = AddNorm(num_hiddens, dropout)
            self.attention2 = d2l.MultiHeadAttention(num_hiddens, num_heads,
                                                     dropout)
            self.addnorm2 = AddNorm(num_hiddens, dropout)
            self.ffn = PositionWiseFFN(ffn_num_hiddens, num_hiddens)
            self.addnorm3 = AddNorm(num_hiddens, dropout)

        def forward(self, X, state):
            enc_outputs, enc_valid_lens = state[0], state[1]
            # During training, all the tokens of any output sequence are processed
            # at the same time, so state[2][self.i] is None as initialized. When
            # decoding any output sequence token by token during prediction,
            # state[2][self.i] contains representations of the decoded output at
            # the i-th block up to the current time step
            if state[2][self.i] is None:
                key_values = X
            else:
                key_values = torch.cat((state[2][self.i], X), dim=1)
            state[2][self.i] = key_values
            if self.training:
                batch_size, num_steps, _ = X.shape
                # Shape of dec_valid_lens: (batch_size, num_steps), where every
                # row is [1, 2, ..., num_steps]
                dec_valid_lens = torch.arange(
                    1, num_steps + 1, device=X.device).repeat(batch_size, 1)
            else:
                dec_valid_lens = None
            # Self-attention
            X2 = self.attention1(X, key_values, key_values, dec_valid_lens)
            Y = self.addnorm1(X, X2)
            # Encoder-decoder attention. Shape of enc_outputs:
            # (batch_size, num_steps, num_hiddens)
            Y2 = self.attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
            Z = self.addnorm2(Y, Y2)
            return self.addnorm3(Z, self.ffn(Z)), state

    decoder_blk = TransformerDecoderBlock(24, 48, 8, 0.5, 0)
    X = d2l.ones((2, 100, 24))
    state = [encoder_blk(X, valid_lens), valid_lens, [None]]
    d2l.check_shape(decoder_blk(X, state)[0], X.shape)
    # fmt: on
    # end d2l-en
    # "when the inputs at all these positions are the same, their outputs are also identical"
    assert row.shape == (3, 8) and torch.equal(row[0], row[1]) and torch.equal(row[1], row[2])
    # the encoder keeps each block's weights, read where d2l-en reads them, and never attends to padding
    assert [w.shape for w in encoder.attention_weights] == [(2 * 8, 100, 100)] * 2
    assert all((w[:8, :, 3:] == 0).all() and (w[8:, :, 2:] == 0).all() for w in encoder.attention_weights)
    # the decoder block in training mode masks the future: query t sees keys 0..t
    causal = decoder_blk.attention1.attention.attention_weights  # (2 * 8, 100, 100)
    past = torch.ones(100, 100, dtype=torch.bool).tril()  # (Q, K): key k <= query q
    assert (causal[:, ~past] == 0).all() and (causal[:, past] > 0).all()


# ---------------------------------------------------------------- plumbing


def test_aliases_are_the_torch_functions_d2l_names():
    x = d2l.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert d2l.reduce_sum(x).item() == 6.0 and d2l.reduce_mean(x).item() == 1.5
    assert d2l.numpy(x).tolist() == x.tolist() and d2l.size(x) == 4
    third = torch.tensor([1 / 3, -2.0]).to(torch.bfloat16)  # numpy has no bfloat16: float32, the same values
    assert d2l.numpy(third).dtype == np.float32 and d2l.numpy(third).tolist() == third.float().tolist()
    assert d2l.astype(x, torch.int64).dtype == torch.int64 and d2l.argmax(x).item() == 3
    assert torch.equal(d2l.transpose(x), x.t()) and torch.equal(d2l.reshape(x, (4,)), x.reshape(4))
    assert torch.equal(d2l.abs(x), x.abs()) and torch.equal(d2l.concat((x, x), 0), torch.cat((x, x)))
    assert torch.equal(d2l.expand_dims(x, 0), x[None]) and d2l.eye(2).trace().item() == 2.0
    assert d2l.exp(d2l.zeros(1)).item() == 1.0 and d2l.sin(d2l.zeros(1)).item() == 0.0
    assert d2l.rand(2, 3).shape == d2l.randn(2, 3).shape == (2, 3) and d2l.float32 is torch.float32
    assert d2l.arange(3).tolist() == [0, 1, 2] and d2l.ones(2).tolist() == [1.0, 1.0]
    assert d2l.normal(0, 1, (2, 5)).shape == (2, 5) and d2l.plt is plt
    low = torch.tensor([[0.5, -2.0], [3.0, 448.0]]).to(torch.float8_e4m3fn)  # stored only: converted, reshaped
    assert d2l.to(low, torch.float32).tolist() == d2l.astype(low, torch.float32).tolist() == [[0.5, -2.0], [3.0, 448.0]]
    assert d2l.reshape(low, (4,)).dtype == low.dtype and d2l.size(low) == 4 and d2l.transpose(low).shape == (2, 2)
    with pytest.raises(TypeError, match="^x has dtype torch.float8_e4m3fn, which PyTorch stores"):
        d2l.argmax(low)


def test_check_shape_fails_loudly_and_names_what_it_got():
    d2l.check_shape(torch.ones(2, 3), (2, 3))
    d2l.check_shape(torch.ones(2, 3), torch.Size([2, 3]))
    with pytest.raises(AssertionError, match=r"tensor's shape \(2, 3\) != expected shape \(3, 2\)"):
        d2l.check_shape(torch.ones(2, 3), (3, 2))
    with pytest.raises(TypeError, match="a must be a tensor or array"):
        d2l.check_shape([1, 2], (2,))
    with pytest.raises(TypeError, match="shape must be a tuple of ints"):
        d2l.check_shape(torch.ones(2), 2)


def test_plot_draws_every_series_and_checks_pairs():
    d2l.plot(d2l.arange(5), [d2l.arange(5) * k for k in range(6)], legend=[f"{k}" for k in range(6)])
    assert len(plt.gca().lines) == 6  # d2l's own drops series beyond its four formats
    d2l.plot([1.0, 2.0, 3.0])  # one series against its index
    assert plt.gca().lines[0].get_xdata().tolist() == [0, 1, 2]
    half = torch.tensor([0.5, 1 / 3]).to(torch.bfloat16)  # numpy has no bfloat16: drawn from float32 copies
    d2l.plot(half, [half * 2])
    assert plt.gca().lines[0].get_ydata().tolist() == (half * 2).float().tolist()
    with pytest.raises(ValueError, match="X and Y must pair up: series 0 has 3 x values and 2 y values"):
        d2l.plot([1, 2, 3], [4, 5])
    with pytest.raises(ValueError, match="X and Y must pair up: 2 x series for 3 y series"):
        d2l.plot([[1, 2], [1, 2]], [[1, 2], [1, 2], [1, 2]])
    with pytest.raises(TypeError, match="X must be a series"):
        d2l.plot(None)
    with pytest.raises(TypeError, match="fmts must be a non-empty sequence"):
        d2l.plot([1, 2], fmts="-")


def test_set_figsize_and_use_svg_display():
    before = plt.rcParams["figure.figsize"]
    try:
        d2l.set_figsize((4, 3))
        assert list(plt.rcParams["figure.figsize"]) == [4.0, 3.0]
    finally:
        plt.rcParams["figure.figsize"] = before
    d2l.use_svg_display()  # outside IPython: nothing to set, and no error
    with pytest.raises(ValueError, match=r"figsize\[1\] must be > 0.0"):
        d2l.set_figsize((4, 0))


# ---------------------------------------------------------------- d2l-zh: `import attention_helpers as d2l`


def test_d2l_zh_chapter_code_runs_with_the_package_as_d2l():
    """The d2l-zh edition's layer calls (explicit sizes) with `import attention_helpers as d2l`."""
    import attention_helpers as d2l_zh

    queries, keys = torch.normal(0, 1, (2, 1, 20)), torch.ones((2, 10, 2))
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    valid_lens = torch.tensor([2, 6])
    attention = d2l_zh.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    attention.eval()
    assert attention(queries, keys, values, valid_lens).shape == (2, 1, 4)
    d2l_zh.show_heatmaps(attention.attention_weights.reshape((1, 1, 2, 10)), xlabel="Keys", ylabel="Queries")
    # identical keys give identical scores: uniform weights over the valid keys
    torch.testing.assert_close(attention.attention_weights[0, 0, :2], torch.full((2,), 0.5))
    num_hiddens, num_heads = 100, 5
    attention = d2l_zh.MultiHeadAttention(num_hiddens, num_hiddens, num_hiddens, num_hiddens, num_heads, 0.5)
    attention.eval()
    X, Y = torch.ones((2, 4, num_hiddens)), torch.ones((2, 6, num_hiddens))
    assert attention(X, Y, Y, torch.tensor([3, 2])).shape == (2, 4, num_hiddens)
    assert attention.attention.attention_weights.shape == (10, 4, 6)


# ---------------------------------------------------------------- both signatures, and neither


@pytest.mark.parametrize(
    ("make", "edition", "sizes"),
    [
        (lambda: d2l.AdditiveAttention(8, 0.1), "d2l-en", (None, None)),
        (lambda: d2l.AdditiveAttention(num_hiddens=8, dropout=0.0), "d2l-en", (None, None)),
        (lambda: d2l.AdditiveAttention(2, 20, 8, 0.1), "d2l-zh", (20, 2)),
        (lambda: d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1), "d2l-zh", (20, 2)),
    ],
)
def test_additive_attention_takes_either_signature(make, edition, sizes):
    layer = make()
    assert layer.edition.startswith(edition) and (layer.query_size, layer.key_size) == sizes
    assert layer(torch.randn(2, 3, 20), torch.randn(2, 4, 2), torch.randn(2, 4, 5)).shape == (2, 3, 5)
    assert (layer.query_size, layer.key_size) == (20, 2)


@pytest.mark.parametrize(
    ("make", "edition", "bias"),
    [
        (lambda: d2l.MultiHeadAttention(8, 2, 0.0), "d2l-en", False),
        (lambda: d2l.MultiHeadAttention(8, 2, 0.0, True), "d2l-en", True),
        (lambda: d2l.MultiHeadAttention(num_hiddens=8, num_heads=2, dropout=0.0, bias=True), "d2l-en", True),
        (lambda: d2l.MultiHeadAttention(6, 4, 5, 8, 2, 0.0), "d2l-zh", False),
        (lambda: d2l.MultiHeadAttention(6, 4, 5, 8, 2, 0.0, bias=True), "d2l-zh", True),
    ],
)
def test_multi_head_attention_takes_either_signature(make, edition, bias):
    layer = make()
    assert layer.edition.startswith(edition) and (layer.W_o.bias is not None) == bias
    out = layer(torch.randn(2, 3, 4), torch.randn(2, 7, 6), torch.randn(2, 7, 5), torch.tensor([3, 7]))
    assert out.shape == (2, 3, 8) and layer.sizes == (4, 6, 5)
    assert layer.attention.attention_weights.shape == (4, 3, 7)


@pytest.mark.parametrize(
    "make",
    [
        lambda: d2l.AdditiveAttention(8),
        lambda: d2l.AdditiveAttention(2, 20, 8),
        lambda: d2l.AdditiveAttention(num_hiddens=8, dropout=0.1, key_size=2),
        lambda: d2l.AdditiveAttention(8, 0.1, units=3),
        lambda: d2l.MultiHeadAttention(8, 2),
        lambda: d2l.MultiHeadAttention(4, 4, 4, 8, 2),
        lambda: d2l.MultiHeadAttention(8, 2, 0.1, False, True),
    ],
)
def test_a_call_fitting_neither_signature_shows_both(make):
    with pytest.raises(TypeError, match=r"fits neither signature") as info:
        make()
    message = str(info.value)
    assert "(d2l-zh, explicit sizes)" in message and "(d2l-en, sizes inferred at the first call)" in message
    assert "key_size, query_size" in message and "(num_hiddens, " in message


def test_lazy_layers_check_sizes_after_their_first_call():
    layer = d2l.MultiHeadAttention(8, 2, 0.0)
    layer(torch.randn(1, 2, 4), torch.randn(1, 3, 6), torch.randn(1, 3, 6))
    with pytest.raises(ValueError, match="queries has feature size 5 but the layer was built with query_size=4"):
        layer(torch.randn(1, 2, 5), torch.randn(1, 3, 6), torch.randn(1, 3, 6))
    fresh = d2l.AdditiveAttention(8, 0.0)
    with pytest.raises(TypeError, match="are torch.float64 but the layer's parameters are torch.float32"):
        fresh(*(torch.randn(1, 2, 3, dtype=torch.float64) for _ in range(3)))
    assert fresh.query_size is None  # a refused call leaves the lazy sizes open
    fresh.double()
    assert fresh(*(torch.randn(1, 2, 3, dtype=torch.float64) for _ in range(3))).dtype == torch.float64
