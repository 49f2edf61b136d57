"""The sentence model's int8 weights stored as uint8 with a zero point of 128, for
app/memory/meaning/model/minilm.onnx (tools/export_onnx.py calls it after quantising).

The integers are the same, shifted by 128, and so are the vectors; what changes is the kernel
onnxruntime picks for each MatMulInteger. With int8 weights it multiplies uint8 activations
by int8 weights (u8s8), and on x86 CPUs without VNNI (AVX2 alone: many AMD EPYC and Intel CPUs
before Cascade Lake) that kernel adds pairs of products in 16 bits, which saturate (OpenVINO's
"saturation issue" notes say the same of 8-bit kernels on such CPUs). There the worst fixture
text came out at a cosine of 0.971 with fp32 (mean 0.991); as u8u8, 0.986 (mean 0.993), as
measured at export on a CPU with VNNI (0.988). The u8u8 kernel costs about 13% more CPU here.

    python tools/unsigned_weights.py   # the shipped file, in place (needs the onnx package)
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

MODEL = Path(__file__).resolve().parent.parent / "app" / "memory" / "meaning" / "model"
QUANTISATION = ("onnxruntime quantize_dynamic, QInt8 weights, per_channel=True; the weights "
                "then stored as uint8 with zero point 128 (tools/unsigned_weights.py)")  # fmt: skip


def unsigned(path: Path) -> int:
    """Every int8 weight of a MatMulInteger in the graph at `path` made uint8 (+128, and its
    zero point likewise), in place; how many weights were."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path))
    held = {tensor.name: tensor for tensor in graph.graph.initializer}
    shifted = 0
    for node in graph.graph.node:
        if node.op_type != "MatMulInteger" or len(node.input) < 4:
            continue
        for name in (node.input[1], node.input[3]):  # the weight and its zero point
            tensor = held.get(name)
            if tensor is None or tensor.data_type != onnx.TensorProto.INT8:
                continue
            values = numpy_helper.to_array(tensor).astype(np.int16) + 128
            tensor.CopyFrom(numpy_helper.from_array(values.astype(np.uint8), name))
            shifted += name == node.input[1]
    onnx.save(graph, str(path))
    return shifted


def main() -> None:
    onnx_file, meta_file = MODEL / "minilm.onnx", MODEL / "minilm.json"
    print(f"{unsigned(onnx_file)} weights made uint8")
    digest = hashlib.sha256(onnx_file.read_bytes()).hexdigest()
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    meta.update(id=digest[:12], onnx_sha256=digest, quantisation=QUANTISATION)
    meta_file.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
