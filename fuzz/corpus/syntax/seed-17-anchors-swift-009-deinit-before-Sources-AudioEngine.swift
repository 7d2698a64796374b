final class AudioEngine {
    private var buffers: [UnsafeMutableRawPointer] = []

    func allocate(bytes: Int) -> UnsafeMutableRawPointer {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        buffers.append(buffer)
        return buffer
    }

    deinit {
        for buffer in buffers {
            buffer.deallocate()
        }
    }
}
