#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SealedStorage

/// Work on many independent items split over the cores, results in the items' order: a first
/// sync's rows and a snapshot's entries are each a hash or a decryption of their own.
package enum SplitWork {
    /// `work` over `items` cut into contiguous shares, one per thread, on up to as many threads
    /// as there are active processors, each share at least `minimumPerWorker` items (fewer
    /// items make one share, worked on the caller's thread: a thread costs more than a few
    /// hashes); the shares' results joined in the items' order. `work` returns one result per
    /// item of its share, in the share's order, and makes at the start whatever a worker needs
    /// of its own (a key lookup, whose cache is not shared between threads).
    ///
    /// A share, not an item and an `inout` context: a context of a function type (a key
    /// lookup) passed `inout` through this generic function was wrapped in two more
    /// reabstraction thunks at every call, and each call walked the whole chain, so opening a
    /// page cost the square of its rows.
    package static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], minimumPerWorker: Int, _ work: @Sendable (ArraySlice<Item>) -> [Result]
    ) -> [Result] {
        // The processor count is asked only for a batch worth splitting: Foundation reads it
        // from the system each time.
        let workers = items.count < 2 * minimumPerWorker ? 1 : min(ProcessInfo.processInfo.activeProcessorCount, items.count / minimumPerWorker)
        guard workers > 1 else { return results(of: work, over: items[...]) }
        let slots = (0..<workers).map { _ in Locked<[Result]>([]) }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let done = results(of: work, over: items[(items.count * worker / workers)..<(items.count * (worker + 1) / workers)])
            slots[worker].withLock { $0 = done }
        }
        return slots.flatMap { slot in slot.withLock { $0 } }
    }

    private static func results<Item, Result>(of work: (ArraySlice<Item>) -> [Result], over share: ArraySlice<Item>) -> [Result] {
        let done = work(share)
        precondition(done.count == share.count, "SplitWork: a share of \(share.count) items gave \(done.count) results")
        return done
    }
}
