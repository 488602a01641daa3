"""Guards on numbers and asserts: the shapes the deriver reads as ranges and as guards."""
import torch
from collections.abc import Sequence


def positive_pages(page_size):
    if page_size <= 0:
        raise ValueError(f"page_size must be positive, got {page_size}")
    return page_size


def bits_in_range(bits):
    if bits < 2 or bits > 8:
        raise ValueError(f"bits must be in [2, 8], got {bits}")
    return bits


def bound_on_the_left(count):
    if 0 >= count:
        raise ValueError("count must be positive")
    return count


def asserted_choice(mode):
    assert mode in ("fast", "exact"), f"unknown mode {mode}"
    return mode


def asserted_present(layers):
    assert layers is not None, "layers are required"
    return layers


def asserted_range(ratio):
    assert ratio > 0 and ratio <= 1, "ratio must be in (0, 1]"
    return ratio


def by_identity(flag):
    if flag is True:
        raise ValueError("flag must not be True")
    return flag


def asserted_type(value):
    assert isinstance(value, int)
    return value


def needs_template(name, template=None):
    if template is None:
        raise ValueError("a chat template is required")
    return name, template


def workers(count=0):
    if count <= 0:
        raise ValueError("count must be positive")
    return count


def needs_tensor(x):
    if not isinstance(x, torch.Tensor):
        raise TypeError("x must be a tensor")
    return x


def frames_list(frames):
    if not isinstance(frames, Sequence) or isinstance(frames, (str, bytes)):
        raise ValueError("frames must be a sequence")
    return frames


def prefix_or_suffix(prefix, suffix=0):
    if prefix and suffix:
        raise ValueError("only one of prefix and suffix")
    return prefix, suffix


def own_class(x):
    if not isinstance(x, Frame):
        raise TypeError("a Frame")
    return x


class Frame:
    pass


def positive_scale(scale):
    if scale <= 0.0:
        raise ValueError("scale must be positive")
    return scale
