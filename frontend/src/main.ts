import { createApp } from 'vue'
import App from './App.vue'
import { makeRouter } from './router'
import { initAuth } from './stores/auth'
import './style.css'
import { wireApi } from './wire'

// Read (and strip) #token=... before the router interprets the fragment as a route.
initAuth()
wireApi()
createApp(App).use(makeRouter()).mount('#app')
