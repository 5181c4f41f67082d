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
    /// `transform` of each of `items`, in order, on up to as many threads as there are active
    /// processors, each taking at least `minimumPerWorker` items (fewer items run on the caller's
    /// thread alone: a thread costs more than a few hashes). `transform` is called once per item
    /// with the worker's own `context` (made by `makeContext` once per worker: a key lookup,
    /// whose cache is not shared between threads).
    package static func map<Item: Sendable, Context, Result: Sendable>(
        _ items: [Item], minimumPerWorker: Int, context makeContext: @Sendable () -> Context,
        _ transform: @Sendable (Item, inout Context) -> Result
    ) -> [Result] {
        // The processor count is asked only for a batch worth splitting: Foundation reads it
        // from the system each time.
        let workers = items.count < 2 * minimumPerWorker ? 1 : min(ProcessInfo.processInfo.activeProcessorCount, items.count / minimumPerWorker)
        guard workers > 1 else {
            var context = makeContext()
            return items.map { transform($0, &context) }
        }
        let slots = (0..<workers).map { _ in Locked<[Result]>([]) }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var context = makeContext()
            let share = items[(items.count * worker / workers)..<(items.count * (worker + 1) / workers)]
            let done = share.map { transform($0, &context) }
            slots[worker].withLock { $0 = done }
        }
        return slots.flatMap { slot in slot.withLock { $0 } }
    }
}
