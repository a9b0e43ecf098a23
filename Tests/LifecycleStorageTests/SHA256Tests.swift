// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleStorage

/// The SHA-256 that names the state files of long unit names, against FIPS 180-4's examples and digests of padding's
/// edge cases (55, 56, 63 and 64 bytes) computed with another implementation.
struct SHA256Tests {
    @Test(
        "digests match the standard's examples and the padding edges",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
            (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (String(repeating: "a", count: 255), "b0f3323e7a3cad8ae6778340cc2a17ae0cb31c818df3767cda7c3dd423725e90"),
        ]
    )
    func digests(_ message: String, _ expected: String) {
        #expect(SHA256.hexDigest(Array(message.utf8)) == expected)
    }
}
